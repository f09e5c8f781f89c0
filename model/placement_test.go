package model_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// poolText is a placed plan's engines, threads, siblings and allowed
// cores: "p=8/4 e=8".
func poolText(p model.Plan) string {
	var parts []string
	for i, e := range p.Engines {
		s := fmt.Sprintf("%s=%d", e, p.Threads[i])
		if i < len(p.SMT) && p.SMT[i] > 0 {
			s += fmt.Sprintf("/%d", p.SMT[i])
		}
		if i < len(p.Allowed) {
			s += fmt.Sprintf("[%dx%d]", p.Allowed[i].Cores, p.Allowed[i].Ways)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// TestPlaceOS: an OS places a pool's threads on idle cores before SMT
// siblings, the fastest cluster first: on the hybrid fixture (8 P-cores
// with SMT, 16 E-cores) -t 8 is the P-cores, -t 16 adds 8 E-cores, -t 24
// every core, -t 32 the P-cores' siblings too, -t 40 takes turns on the
// 32 hardware threads. Every policy but strict places so; a mask narrows
// it, except on macOS and Android, where ggml applies no affinity; on the
// rk3588 -t 4 is the four A76s.
func TestPlaceOS(t *testing.T) {
	s := loadSMT(t)
	for _, tc := range []struct {
		n    int
		pol  model.Placement
		mask []int
		want string
	}{
		{1, model.PlaceLinux, nil, "p=1"},
		{8, model.PlaceLinux, nil, "p=8"},
		{16, model.PlaceLinux, nil, "p=8 e=8"},
		{24, model.PlaceWindows, nil, "p=8 e=16"},
		{32, model.PlaceLinux, nil, "p=16/8 e=16"},
		{40, model.PlaceLinux, nil, "p=24/8 e=16"},
		{8, model.PlaceAndroid, []int{16, 17, 18, 19, 20, 21, 22, 23}, "p=8"},
		{4, model.PlaceLinux, []int{0, 1, 2, 3}, "p=4/2[2x2]"},
		{4, model.PlaceMacOS, []int{0, 1, 2, 3}, "p=4"},
		{3, model.PlaceLinux, []int{0, 1, 2, 3}, "p=3/1[2x2]"},
		{2, model.PlaceLinux, []int{0, 2, 4, 6}, "p=2[4x1]"},
	} {
		pl, err := s.Place(tc.n, tc.pol, model.PlaceOptions{Mask: tc.mask, Poll: 50})
		if err != nil {
			t.Fatalf("-t %d %s: %v", tc.n, tc.pol, err)
		}
		if got := poolText(pl.Plan); got != tc.want || len(pl.Threads) != tc.n {
			t.Errorf("-t %d %s mask %v: %s (%d threads), want %s", tc.n, tc.pol, tc.mask, got, len(pl.Threads), tc.want)
		}
		if err := pl.Plan.Validate(s); err != nil {
			t.Errorf("-t %d %s: the placed plan is not valid: %v", tc.n, tc.pol, err)
		}
	}
	rk, err := model.LoadSoCFile("../presets/socs/rk3588.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{4: "big=4", 6: "big=4 little=2", 8: "big=4 little=4", 10: "big=6 little=4"} {
		pl, err := rk.Place(n, model.PlaceLinux, model.PlaceOptions{})
		if err != nil || poolText(pl.Plan) != want {
			t.Errorf("rk3588 -t %d: %v %v, want %s", n, pl, err, want)
		}
	}
	if pl, _ := rk.Place(4, model.PlaceLinux, model.PlaceOptions{}); pl.Threads[0].CPU != 4 {
		t.Errorf("rk3588 -t 4: main thread on CPU %d, want an A76 (4)", pl.Threads[0].CPU)
	}
}

// TestPlaceStrict: --cpu-strict 1 pins thread j to the mask's j-th CPU
// (the main thread last), whatever the cores: with Intel's numbering
// -C 0xff is four cores of two threads, with AMD's (siblings at +8) eight
// cores; past the mask the threads wrap around; a pin outside the
// process's CPU set fails and the OS places that thread, beside another
// where the set is full.
func TestPlaceStrict(t *testing.T) {
	s := loadSMT(t)
	ids := func(lo, hi int) []int {
		var out []int
		for i := lo; i <= hi; i++ {
			out = append(out, i)
		}
		return out
	}
	pl, err := s.Place(8, model.PlaceStrict, model.PlaceOptions{Mask: ids(0, 7)})
	if err != nil || poolText(pl.Plan) != "p=8/4[4x2]" {
		t.Fatalf("intel -C 0xff: %v %v", pl, err)
	}
	if pl.Threads[0].CPU != 7 || pl.Threads[1].CPU != 0 {
		t.Errorf("main thread on CPU %d, worker 1 on %d: want 7 and 0", pl.Threads[0].CPU, pl.Threads[1].CPU)
	}
	amd := s.Clone()
	amd.Engines[0].CPUs, amd.Engines[0].SMTCPUs = ids(0, 7), ids(8, 15)
	if pl, err := amd.Place(8, model.PlaceStrict, model.PlaceOptions{Mask: ids(0, 7)}); err != nil || poolText(pl.Plan) != "p=8[8x1]" {
		t.Errorf("amd -C 0xff: %v %v", pl, err)
	}
	if pl, err := amd.Place(10, model.PlaceStrict, model.PlaceOptions{Mask: ids(0, 7)}); err != nil || poolText(pl.Plan) != "p=10[8x1]" {
		t.Errorf("amd -C 0xff -t 10 wraps: two threads share CPUs 0 and 1: %v %v", pl, err)
	}
	// A strict pin of -t 5 to five CPUs while the CPU set (taskset, a
	// cgroup cpuset) is four of them: the fifth thread floats onto one of
	// the four.
	phone := s.Clone()
	phone.Engines = phone.Engines[1:]
	phone.Engines[0].Name = "e"
	pl, err = phone.Place(5, model.PlaceStrict, model.PlaceOptions{Mask: ids(16, 20), Allowed: ids(17, 20)})
	if err != nil || poolText(pl.Plan) != "e=5[4x1]" {
		t.Fatalf("pinned outside the CPU set: %v %v", pl, err)
	}
	if !pl.Plan.PoolEngine(0, &phone.Engines[0]).Oversubscribed(5, 0) {
		t.Error("five threads on four allowed cores: not oversubscribed")
	}
	// Without CPU ids a mask cannot be placed; the error names the field.
	bare := s.Clone()
	for i := range bare.Engines {
		bare.Engines[i].CPUs, bare.Engines[i].SMTCPUs = nil, nil
	}
	if _, err := bare.Place(4, model.PlaceStrict, model.PlaceOptions{}); err == nil || !strings.Contains(err.Error(), "engines.NAME.cpus") {
		t.Errorf("strict without CPU ids: %v", err)
	}
	if _, err := s.Place(4, model.PlaceLinux, model.PlaceOptions{Mask: []int{99}}); err == nil || !strings.Contains(err.Error(), "CPU 99") {
		t.Errorf("mask of an unknown CPU: %v", err)
	}
	if _, err := model.ParsePlacement("bsd"); err == nil || !strings.Contains(err.Error(), "linux, android, macos, windows, strict") {
		t.Errorf("placement bsd: %v", err)
	}
	if p, err := model.ParsePlacement(" MacOS "); err != nil || p != model.PlaceMacOS || p.TimesliceUS() != 10000 {
		t.Errorf("MacOS: %v %v", p, err)
	}
	if !reflect.DeepEqual(pl.Plan.Allowed, []model.CoreSet{{Cores: 4, Ways: 1}}) {
		t.Errorf("allowed %v", pl.Plan.Allowed)
	}
}
