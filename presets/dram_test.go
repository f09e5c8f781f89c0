package presets

import (
	"math"
	"strings"
	"testing"
)

// TestSoCWithDRAM: another memory on a preset that names a memory part
// moves its peak, sustained figure and the clusters' caps as the part
// derives them; a preset with its figures written out, or a malformed
// spec, is a one-line error.
func TestSoCWithDRAM(t *testing.T) {
	base, err := SoC("i9-13900k")
	if err != nil {
		t.Fatal(err)
	}
	s, err := SoCWithDRAM("i9-13900k", "ddr5-6400x128")
	if err != nil {
		t.Fatal(err)
	}
	// The library keeps three significant figures: 102.4 is 102.
	if math.Abs(s.DRAM.PeakGBs/102.4-1) > 0.005 {
		t.Errorf("peak %g GB/s, want 102.4 (128 bits / 8 x 6400 MT/s)", s.DRAM.PeakGBs)
	}
	// The sustained share is the memory part's, so it scales with the peak.
	if want := base.DRAM.SustainedGBs * 6400 / 5600; math.Abs(s.DRAM.SustainedGBs/want-1) > 0.005 {
		t.Errorf("sustained %g GB/s, want %.3f", s.DRAM.SustainedGBs, want)
	}
	for i, e := range s.Engines {
		if e.BandwidthMaxGBs <= base.Engines[i].BandwidthMaxGBs {
			t.Errorf("%s: cap %g GB/s, not above the preset's %g", e.Name, e.BandwidthMaxGBs, base.Engines[i].BandwidthMaxGBs)
		}
	}
	// The M1 Max keeps its Apple controller's share.
	m, err := SoCWithDRAM("apple-m1-max", "lpddr5-6400x256")
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := SoC("apple-m1-max")
	if got, want := m.DRAM.SustainedGBs/m.DRAM.PeakGBs, mb.DRAM.SustainedGBs/mb.DRAM.PeakGBs; math.Abs(got-want) > 0.005 {
		t.Errorf("apple-m1-max with a 256-bit bus: share %.3f, want the controller's %.3f", got, want)
	}
	for _, c := range []struct{ name, spec, want string }{
		{"rk3588", "lpddr4x-4224x64", "writes peak_gb_s"},
		{"i9-13900k", "ddr5-6400", "want TYPE-MTSxBITS"},
		{"i9-13900k", "ddr6-6400x128", "unknown memory type"},
		{"nosuch", "ddr5-6400x128", "unknown soc preset"},
	} {
		_, err := SoCWithDRAM(c.name, c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("SoCWithDRAM(%s, %s) = %v, want one line containing %q", c.name, c.spec, err, c.want)
		}
	}
}
