package parts_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
)

// issueCores are the core types issue 25 asks the library for, by the
// part names that carry them.
var issueCores = []string{
	"cortex-a53", "cortex-a55", "cortex-a72", "cortex-a76", "cortex-a78", "cortex-a78c", "cortex-a78ae",
	"cortex-x1", "cortex-x1c", "cortex-a510", "cortex-a520", "cortex-a710", "cortex-a715", "cortex-a720",
	"cortex-x2", "cortex-x3", "cortex-x4", "cortex-x925", "qualcomm-oryon",
	"apple-m1-p", "apple-m1-e", "apple-m2-p", "apple-m2-e", "apple-m3-p", "apple-m3-e", "apple-m4-p", "apple-m4-e",
	"skylake-client", "golden-cove", "raptor-cove", "gracemont", "crestmont", "redwood-cove", "lion-cove", "skymont",
	"zen2", "zen3", "zen4", "zen5", "zen5c",
}

// TestIssueCoverage: every core type and memory type issue 25 lists is in
// the library, and each core gives every per-core value the issue names,
// with its source: the ISA features that pick llama.cpp's kernel path,
// the SIMD pipes and widths, in-order or out-of-order, SMT ways, L1/L2,
// one core's DRAM stream and its cluster's share of the memory system;
// and, resolved into a cluster, a kernel rate on the generic path and on
// the repacked path (where the core repacks), the overlaps and the
// per-thread bandwidth, each named as the part's.
func TestIssueCoverage(t *testing.T) {
	for _, m := range []string{"lpddr4x", "lpddr5", "lpddr5x", "lpddr5t", "ddr4", "ddr5"} {
		if _, err := parts.LookupMemory(m); err != nil {
			t.Errorf("memory type %s: %v", m, err)
		}
	}
	for _, name := range issueCores {
		t.Run(name, func(t *testing.T) {
			c, err := parts.LookupCore(name)
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != name {
				t.Errorf("%s resolves to the part %s", name, c.Name)
			}
			for path, ok := range map[string]bool{
				"features":           len(c.Features) > 0,
				"out_of_order":       true,
				"smt_ways":           c.SMTWays >= 1,
				"simd_pipes":         c.SIMDPipes > 0,
				"simd_bits":          c.SIMDBits >= 64,
				"l1d_kib":            c.L1DKiB > 0,
				"l2_kib":             c.L2KiB > 0,
				"stream_gb_s":        c.StreamGBs > 0,
				"cluster_dram_share": c.ClusterDRAMShare > 0 && c.ClusterDRAMShare <= 1,
			} {
				if !ok {
					t.Errorf("%s: missing or out of range", path)
				}
				if c.Note(path) == "" {
					t.Errorf("%s: no source", path)
				}
			}
			spec := fmt.Sprintf("schema: blsim/soc/v1\nname: one\ndram: {type: ddr5, bus_bits: 128, mt_s: 5600}\nengines:\n  - {name: big, core: %s, cores: 4, clock_ghz: 3}\n", name)
			s, res, err := model.ResolveSoC([]byte(spec), "one.yaml")
			if err != nil {
				t.Fatal(err)
			}
			e := s.Engines[0]
			paths := []string{"mem_compute_overlap", "bandwidth_per_thread_gb_s", "bandwidth_max_gb_s", "l2_kib_per_core", "kernel_ops_per_cycle.q3_k"}
			// The one-token overlap: its own where a core gives one, else
			// the prefill's (model.Engine.GemvOverlap: absent is
			// mem_compute_overlap), which the part's note then says.
			if e.GemvOverlap > 0 {
				paths = append(paths, "gemv_overlap")
			} else if n := res.Of("engines.big.mem_compute_overlap").Note; !strings.Contains(n, "one-token") && !strings.Contains(n, "gemv_overlap") {
				t.Errorf("no gemv_overlap, and mem_compute_overlap's source %q does not say it is the one-token overlap too", n)
			}
			if rp := c.RepackedTypes(); len(rp) > 0 {
				paths = append(paths, "kernel_ops_per_cycle."+rp[0])
			}
			for _, p := range paths {
				v, err := s.Get("engines.big." + p)
				src := res.Of("engines.big." + p)
				if err != nil || !(v > 0) || src.Layer != parts.FromPart || src.Part == "" || src.Note == "" {
					t.Errorf("%s = %g (%v): source %+v, want a value from a part with its note", p, v, err, src)
				}
			}
		})
	}
}
