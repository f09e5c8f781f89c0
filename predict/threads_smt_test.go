package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// sweepOf is the thread sweep of workload w on SoC preset soc.
func sweepOf(t *testing.T, soc, w string, pol model.Placement) *ThreadsSweep {
	t.Helper()
	s, err := presets.LoadSoC(soc)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := presets.LoadWorkload(w)
	if err != nil {
		t.Fatal(err)
	}
	th, err := Threads(ThreadsRequest{SoC: s, Workload: wl, Gen: 8, Poll: 50, Draws: 8, Placement: pol})
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// rowsText is each row as "mask -t N mask", one per line.
func rowsText(th *ThreadsSweep) string {
	var b strings.Builder
	for _, r := range th.Rows {
		fmt.Fprintf(&b, "%s -t %d %s\n", r.Mask, r.Threads, r.CPUMask)
	}
	return b.String()
}

// TestThreadsEveryCluster: a SoC of three clusters (cix-p1: 4 A720 big,
// 4 A720 mid, 4 A520 little) is swept over all three, -t up to every
// core: llama-bench's default -t 12 on that board is every core's row.
func TestThreadsEveryCluster(t *testing.T) {
	th := sweepOf(t, "cix-p1", "llama-2-7b", "")
	txt := rowsText(th)
	for _, want := range []string{"big -t 4 ", "big+mid -t 8 ", "big+mid+little -t 12 ", "mid -t 4 ", "little -t 4 ", "unpinned -t 12 \n"} {
		if !strings.Contains(txt, want) {
			t.Errorf("no row %q in\n%s", want, txt)
		}
	}
	if th.AllCores.Mask != "big+mid+little" || th.AllCores.Threads != 12 {
		t.Errorf("every core: %s -t %d, want big+mid+little -t 12", th.AllCores.Mask, th.AllCores.Threads)
	}
	// The OS fills the fastest cluster first: unpinned -t 8 is big and mid.
	for _, r := range th.Rows {
		if r.Unpinned && r.Threads == 8 && r.Where() != "4 on big, 4 on mid" {
			t.Errorf("unpinned -t 8: %s", r.Where())
		}
	}
	if th.Placement != model.PlaceLinux {
		t.Errorf("placement %q", th.Placement)
	}
}

// TestThreadsSMT: an SMT chip's sweep goes on past the cores to every
// hardware thread, with the siblings' CPU ids in the mask: the 6800H
// (AMD numbers a core's sibling 8 above it) to -t 16, 0xffff; the 13900K
// (Intel numbers them side by side; 8 P-cores with HT, 16 E-cores) to -t
// 32, P-cores, E-cores, then the P-cores' siblings.
func TestThreadsSMT(t *testing.T) {
	amd := sweepOf(t, "ryzen-7-6800h", "llama-2-7b", "")
	txt := rowsText(amd)
	for _, want := range []string{"big -t 8 0xff\n", "big+smt -t 9 0x1ff\n", "big+smt -t 16 0xffff\n", "unpinned -t 16 \n"} {
		if !strings.Contains(txt, want) {
			t.Errorf("6800H: no row %q in\n%s", want, txt)
		}
	}
	if amd.AllCores.Threads != 8 {
		t.Errorf("6800H every core: -t %d, want 8 (one a core)", amd.AllCores.Threads)
	}
	intel := sweepOf(t, "i9-13900k", "llama-2-7b", "")
	txt = rowsText(intel)
	for _, want := range []string{"big -t 8 0x5555\n", "big+little -t 24 0xffff5555\n", "big+little+smt -t 25 0xffff5557\n", "big+little+smt -t 32 0xffffffff\n", "little -t 16 0xffff0000\n", "unpinned -t 32 \n"} {
		if !strings.Contains(txt, want) {
			t.Errorf("13900K: no row %q in\n%s", want, txt)
		}
	}
	for _, r := range intel.Rows {
		if r.Unpinned && r.Threads == 25 && r.Where() != "9 on big (1 on SMT siblings), 16 on little" {
			t.Errorf("13900K unpinned -t 25: %s, want the E-cores before a P-core's sibling", r.Where())
		}
	}
}

// TestThreadsPlacement: the unpinned rows follow the named policy, and a
// policy that is not an OS's is a one-line error naming the field.
func TestThreadsPlacement(t *testing.T) {
	mac := sweepOf(t, "apple-m4-pro", "llama-2-7b", model.PlaceMacOS)
	if mac.Placement != model.PlaceMacOS {
		t.Errorf("placement %q", mac.Placement)
	}
	s, _ := load(t, "rk3588")
	wl, _ := presets.LoadWorkload("llama-2-7b")
	_, err := Threads(ThreadsRequest{SoC: s, Workload: wl, Placement: model.PlaceStrict})
	if err == nil || !strings.Contains(err.Error(), "placement") {
		t.Errorf("strict as the OS's policy: %v", err)
	}
}
