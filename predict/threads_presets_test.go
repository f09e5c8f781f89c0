package predict

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/presets"
)

// TestThreadsEveryPresetCluster: on every SoC preset the thread sweep
// covers every CPU cluster (issue 25: three on the CIX P1, four on the
// Snapdragon 8 Gen 3, three on the Dimensity 9300, whose spec sheets give
// 4+4+4, 1+3+2+2 and 1+3+4 cores at distinct clocks): each cluster alone
// up to its cores, every core in one pool (llama.cpp's default -t on a
// chip it does not know as hybrid), and the unpinned pool up to every
// hardware thread.
func TestThreadsEveryPresetCluster(t *testing.T) {
	want := map[string]int{"cix-p1": 3, "snapdragon-8-gen3": 4, "dimensity-9300": 3}
	for _, name := range presets.SoCNames() {
		t.Run(name, func(t *testing.T) {
			s, _ := load(t, name)
			cl := cpuClusters(s)
			if n, ok := want[name]; ok && len(cl) != n {
				t.Errorf("%d CPU clusters, want %d", len(cl), n)
			}
			th := sweepOf(t, name, "llama-3.2-3b", "")
			txt := rowsText(th)
			cores, hw := 0, 0
			var all []string
			for _, e := range cl {
				cores += e.Cores
				hw += e.Cores * e.Ways()
				all = append(all, e.Name)
				if row := e.Name + " -t "; !strings.Contains(txt, row) {
					t.Errorf("no row of %s alone in\n%s", e.Name, txt)
				}
			}
			if th.AllCores.Threads != cores || th.AllCores.Mask != strings.Join(all, "+") {
				t.Errorf("every core: %s -t %d, want %s -t %d", th.AllCores.Mask, th.AllCores.Threads, strings.Join(all, "+"), cores)
			}
			top := 0
			for _, r := range th.Rows {
				if r.Unpinned {
					top = max(top, r.Threads)
				}
			}
			if top != hw {
				t.Errorf("unpinned rows reach -t %d, want every hardware thread, %d", top, hw)
			}
		})
	}
}

// TestThreadsWarnsMissingRate: the sweep says which type of the
// workload's weights a cluster has no kernel rate for, as predict does.
func TestThreadsWarnsMissingRate(t *testing.T) {
	s, _ := load(t, "rk3588")
	w, err := presets.LoadWorkload("llama-3.2-3b")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.Engines {
		if _, ok := e.KernelOpsPerCycle["q5_k"]; ok {
			t.Fatalf("%s has a q5_k rate; pick another type for this test", e.Name)
		}
	}
	w.Model.Types = map[string]string{"attention": "q5_k", "dense_ffn": "q5_k", "output": "q6_k"}
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50, Draws: 8})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(th.Notes, "\n")
	for _, want := range []string{"engines.big.kernel_ops_per_cycle: no rate for q5_k", "engines.little.kernel_ops_per_cycle: no rate for q5_k"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "q6_k") {
		t.Errorf("a type with a rate is named:\n%s", notes)
	}
}
