package predict

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestWarnings: each SoC value that cannot matter gets one warning naming
// its path, and only then.
func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(s *model.SoC)
		threads []int
		want    []string // warning paths, in order
		text    string   // in some warning's text
		types   map[string]string
	}{
		{"preset", nil, nil, []string{"dram.peak_gb_s"}, "does not enter the prediction", nil},
		{"eight little cores, default threads", func(s *model.SoC) { s.Engines[1].Cores = 8 }, nil,
			[]string{"dram.peak_gb_s", "engines.little.cores"}, "8 cores, but the prediction runs 4 threads on little", nil},
		{"eight little cores, all used", func(s *model.SoC) { s.Engines[1].Cores = 8 }, []int{4, 8}, []string{"dram.peak_gb_s"}, "", nil},
		{"sustained above the caps", func(s *model.SoC) { s.DRAM.PeakGBs, s.DRAM.SustainedGBs = 68, 68 }, nil,
			[]string{"dram.peak_gb_s", "dram.sustained_gb_s"}, "native is held by engines.big.bandwidth_max_gb_s", nil},
		{"a type without a rate", nil, nil,
			[]string{"dram.peak_gb_s", "engines.big.kernel_ops_per_cycle", "engines.little.kernel_ops_per_cycle"},
			"no rate for iq3_xxs, a type of the workload's weights: q4's 28 ops/cycle used", map[string]string{"experts_gate_up": "iq3_xxs", "attention": "q8_0"}},
		{"a cache rate without a cache", func(s *model.SoC) { s.Engines[1].LLCBandwidthGBs, s.Engines[1].SharedCacheKiB = 30, 0 }, nil,
			[]string{"dram.peak_gb_s", "engines.little.llc_bandwidth_gb_s"}, "little has no usable shared cache", nil},
		{"a cache rate with a cache", func(s *model.SoC) { s.Engines[1].LLCBandwidthGBs = 30 }, nil, []string{"dram.peak_gb_s"}, "", nil},
		{"types with rates", nil, nil, []string{"dram.peak_gb_s"}, "", map[string]string{"experts_gate_up": "q4_k", "experts_down": "q6_k", "attention": "q8_0", "router": "f32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, w := load(t, "rk3588")
			if tc.edit != nil {
				tc.edit(s)
			}
			w.Model.Types = tc.types
			w.Run.PromptTokens, w.Run.Ubatch = 64, 64
			p, err := Run(Request{SoC: s, Workload: w, Threads: tc.threads, Poll: 50, Draws: 1})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			all := ""
			for _, x := range p.Warnings {
				paths = append(paths, x.Path)
				all += x.String() + "\n"
			}
			if strings.Join(paths, " ") != strings.Join(tc.want, " ") {
				t.Errorf("warnings %v, want %v:\n%s", paths, tc.want, all)
			}
			if !strings.Contains(all, tc.text) {
				t.Errorf("no warning says %q:\n%s", tc.text, all)
			}
		})
	}
}
