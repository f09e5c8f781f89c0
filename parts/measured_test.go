package parts

import (
	"strings"
	"testing"
)

// TestMeasuredRates: a derived core's measured rate is the rate of its
// type on its path, and sets that path's efficiency for the other types
// (the measured rate over the reference's); the other path keeps the
// ratio of the peaks, and a core without measured rates is unchanged.
func TestMeasuredRates(t *testing.T) {
	l := lib()
	m4, a76, e := l.cores["apple-m4-p"], l.cores["cortex-a76"], l.cores["apple-m4-e"]
	meas := m4.Measured.Repacked["q4_0"]
	if meas <= 0 {
		t.Fatal("apple-m4-p has no measured repacked q4_0 rate")
	}
	rates, notes := m4.Rates(m4.RepackedTypes())
	if rates["q4_0"] != meas || !strings.HasPrefix(notes["q4_0"], "measured: ") || !strings.Contains(notes["q4_0"], "XNNPACK PR #10602") {
		t.Errorf("q4_0 %g (%q), want the measured %g with its source", rates["q4_0"], notes["q4_0"], meas)
	}
	// Q8_0's int8 x int8 kernel is measured on its own and does not
	// enter the efficiency of the types whose kernels unpack weights.
	if q8 := m4.Measured.Repacked["q8_0"]; rates["q8_0"] != q8 || !strings.Contains(notes["q8_0"], "rten PR #827") {
		t.Errorf("q8_0 %g (%q), want the measured %g with its source", rates["q8_0"], notes["q8_0"], q8)
	}
	scale := meas / a76.Kernels.Repacked["q4_0"]
	for _, typ := range []string{"iq4_nl", "q4_k", "q6_k"} {
		want := round3(a76.Kernels.Repacked[typ] * scale)
		if rates[typ] != want || !strings.Contains(notes[typ], "measured repacked rates over cortex-a76's (q4_0 81.7/28)") {
			t.Errorf("repacked %s %g (%q), want %g from the measured efficiency", typ, rates[typ], notes[typ], want)
		}
	}
	if want := round3(a76.Kernels.Classes["q4"] * scale); rates["q4"] != want {
		t.Errorf("class q4 %g, want %g", rates["q4"], want)
	}
	generic, _ := m4.Rates(nil)
	if want := round3(a76.Kernels.Generic["q8_0"] * m4.Int8OpsPerCycle / a76.Int8OpsPerCycle); generic["q8_0"] != want {
		t.Errorf("generic q8_0 %g, want the peak ratio's %g", generic["q8_0"], want)
	}
	er, _ := e.Rates(e.RepackedTypes())
	if want := round3(a76.Kernels.Repacked["q4_0"] * e.repackedPeak() / a76.repackedPeak()); er["q4_0"] != want {
		t.Errorf("apple-m4-e q4_0 %g, want %g (no measured rates)", er["q4_0"], want)
	}
}

// TestMeasuredRatesBadInput: measured rates belong to a derived core and
// are in range.
func TestMeasuredRatesBadInput(t *testing.T) {
	for _, tc := range []struct{ file, from, to, want string }{
		{"cores/cortex-a76.yaml", "engine:\n", "# x\nmeasured_kernels: {repacked: {q4_0: 30}}\nengine:\n", "measured_kernels: only a derived core"},
		{"cores/apple-m4-p.yaml", "repacked: {q4_0: 81.7, q8_0: 112.9}", "repacked: {q4_0: 0}", "measured_kernels.repacked.q4_0: 0 is outside (0, 4096]"},
		{"cores/apple-m4-p.yaml", "repacked: {q4_0: 81.7, q8_0: 112.9}", "classes: {q4: 81.7}", "no classes"},
	} {
		fsys := smtCore(t, "")
		b := string(fsys[tc.file].Data)
		if !strings.Contains(b, tc.from) {
			t.Fatalf("%s has no %q", tc.file, tc.from)
		}
		fsys[tc.file].Data = []byte(strings.Replace(b, tc.from, tc.to, 1))
		delete(fsys, "cores/test-smt.yaml")
		if _, err := load(fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.want, err, tc.want)
		}
	}
}

// TestChainedReference: a core may derive from a derived core with
// measured rates (apple-m2-p from apple-m1-p): its rates are that core's
// (measured ones and the efficiencies they set) times the ratio of the
// peaks, and its engine values come down the chain; a reference without
// kernels of its own or measured ones, or a loop, is refused.
func TestChainedReference(t *testing.T) {
	l := lib()
	m2, m1 := l.cores["apple-m2-p"], l.cores["apple-m1-p"]
	if m2.Reference != "apple-m1-p" {
		t.Fatalf("apple-m2-p's reference %q", m2.Reference)
	}
	rates, notes := m2.Rates(m2.RepackedTypes())
	m1rates, _ := m1.Rates(m2.RepackedTypes())
	scale := m2.repackedPeak() / m1.repackedPeak()
	for _, typ := range []string{"q4_0", "q8_0", "q4_k"} {
		if want := round3(m1rates[typ] * scale); rates[typ] != want {
			t.Errorf("apple-m2-p %s %g, want apple-m1-p's %g x %g = %g", typ, rates[typ], m1rates[typ], scale, want)
		}
	}
	if n := notes["q4_0"]; !strings.Contains(n, "apple-m1-p's repacked.q4_0 rate 74.9") || !strings.Contains(n, "XNNPACK PR #8604") {
		t.Errorf("apple-m2-p q4_0 note %q: want the chain down to the measurement", n)
	}
	got := map[string]bool{}
	for _, ev := range m2.EngineValues() {
		got[ev.Key] = true
	}
	for _, k := range []string{"moe_efficiency", "gemv_overlap", "scalar_ops_per_cycle", "token_tile"} {
		if !got[k] {
			t.Errorf("apple-m2-p has no %s down its chain", k)
		}
	}
	type edit struct{ file, from, to string }
	for _, tc := range []struct {
		edits []edit
		want  string
	}{
		{[]edit{{"cores/apple-m2-p.yaml", "reference: apple-m1-p", "reference: apple-m1-e"}}, `reference "apple-m1-e" is not a core with kernels of its own or measured ones`},
		{[]edit{{"cores/apple-m1-p.yaml", "reference: cortex-a76", "reference: apple-m4-p"}, {"cores/apple-m4-p.yaml", "reference: cortex-a76", "reference: apple-m1-p"}}, "references loop back"},
	} {
		fsys := smtCore(t, "")
		delete(fsys, "cores/test-smt.yaml")
		for _, e := range tc.edits {
			b := string(fsys[e.file].Data)
			if !strings.Contains(b, e.from) {
				t.Fatalf("%s has no %q", e.file, e.from)
			}
			fsys[e.file].Data = []byte(strings.Replace(b, e.from, e.to, 1))
		}
		if _, err := load(fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.edits, err, tc.want)
		}
	}
}

// TestMeasuredQ8Alone: a core whose only measured repacked rate is Q8_0's
// (apple-m3-p) takes its path efficiency from it: its reference's other
// repacked rates in the proportion of the two cores' Q8_0 rates.
func TestMeasuredQ8Alone(t *testing.T) {
	l := lib()
	m3, m4 := l.cores["apple-m3-p"], l.cores["apple-m4-p"]
	if len(m3.Measured.Repacked) != 1 || m3.Measured.Repacked["q8_0"] <= 0 {
		t.Fatalf("apple-m3-p measured %v, want q8_0 alone", m3.Measured.Repacked)
	}
	rates, notes := m3.Rates(m3.RepackedTypes())
	ref, _ := m4.Rates(m3.RepackedTypes())
	scale := m3.Measured.Repacked["q8_0"] / ref["q8_0"]
	for _, typ := range []string{"q4_0", "q4_k"} {
		if want := round3(ref[typ] * scale); rates[typ] != want || !strings.Contains(notes[typ], "measured repacked rates over apple-m4-p's (q8_0 ") {
			t.Errorf("apple-m3-p %s %g (%q), want apple-m4-p's %g x %g = %g", typ, rates[typ], notes[typ], ref[typ], scale, want)
		}
	}
}

// TestRepackedGemvEfficiencyBadInput: a core's repacked one-token share
// out of range, or on a core that repacks nothing, is refused.
func TestRepackedGemvEfficiencyBadInput(t *testing.T) {
	for _, tc := range []struct{ file, from, to, want string }{
		{"cores/apple-m4-p.yaml", "repacked_gemv_efficiency: 0.51", "repacked_gemv_efficiency: 1.5", "repacked_gemv_efficiency 1.5 is outside (0, 1]"},
		{"cores/cortex-a53.yaml", "engine:", "repacked_gemv_efficiency: 0.5\nengine:", "the core repacks no type"},
	} {
		if err := loadEdited(t, tc.file, tc.from, tc.to); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
}
