package model_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func loadSMT(t *testing.T) *model.SoC {
	t.Helper()
	s, err := model.LoadSoCFile("testdata/smt/hybrid-smt.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSMTCores: the cores' worth of pool threads on an 8-core SMT
// cluster, by how many sit on siblings, for work divided in fixed slices
// (the slowest thread gates it) and claimed in chunks (the sum of the
// threads' speeds), with busy hardware threads pairing with pool threads
// once the idle cores are taken.
func TestSMTCores(t *testing.T) {
	e := &model.Engine{Name: "p", Kind: model.KindCPU, Cores: 8, SMTWays: 2}
	for _, tc := range []struct {
		threads, siblings, busy int
		y                       float64
		fixed, chunked          float64
	}{
		{8, 0, 0, 0.2, 8, 8},
		{4, 0, 4, 0.2, 4, 4},                     // the busy tasks take the idle cores
		{16, 8, 0, 0.2, 9.6, 9.6},                // every core two threads: 8 x 1.2
		{12, 4, 0, 0.2, 7.2, 8.8},                // fixed: 12 x 0.6; chunked: 8 + 4 x 0.2
		{12, 4, 0, 0, 6, 8},                      // no yield: four cores gate a fixed slice
		{8, 0, 4, 0.2, 4.8, 6.4},                 // four pool threads beside a busy task
		{2, 1, 0, -0.1, 2 * 0.9 / 2, 1 - 0.1},    // a loss
		{6, 2, 0, 0.5, 6 * 1.5 / 2, 4 + 2*0.5},   // mixed
		{8, 4, 0, 0.3, 8 * 1.3 / 2, 4 + 4*0.3},   // four cores of two, four idle
		{8, 4, 4, 0.3, 8 * 1.3 / 2, 4 + 4*0.3},   // the busy tasks take the idle cores
		{8, 4, 5, 0.3, 8 * 1.3 / 2, 4 + 4*0.3},   // one busy task left: no pool thread alone
		{5, 0, 4, 0.3, 5 * 1.3 / 2, 4 + 1.3/2.0}, // one pool thread beside a busy task
	} {
		gotF := e.SMTCores(tc.threads, tc.siblings, tc.busy, tc.y, true)
		gotC := e.SMTCores(tc.threads, tc.siblings, tc.busy, tc.y, false)
		if math.Abs(gotF-tc.fixed) > 1e-9 || math.Abs(gotC-tc.chunked) > 1e-9 {
			t.Errorf("%d threads, %d on siblings, %d busy, yield %g: fixed %g chunked %g, want %g %g",
				tc.threads, tc.siblings, tc.busy, tc.y, gotF, gotC, tc.fixed, tc.chunked)
		}
	}
	if got := e.DefaultSiblings(12); got != 4 {
		t.Errorf("12 threads on 8 cores of 2: %d on siblings, want 4", got)
	}
	if got := e.DefaultSiblings(40); got != 8 {
		t.Errorf("40 threads on 16 hardware threads: %d on siblings, want 8", got)
	}
}

// TestSMTPlanValidate: sibling counts a pool's cores cannot hold, on a
// cluster without SMT, or past the hardware threads are errors naming
// the engine; the SMT yields are parameters and checked.
func TestSMTPlanValidate(t *testing.T) {
	s := loadSMT(t)
	pool := func(th []int, smt []int) model.Plan {
		p := model.NewPool([]string{"p", "e"}[:len(th)], th, 50)
		p.SMT = smt
		return p
	}
	for _, tc := range []struct {
		name string
		p    model.Plan
		want string
	}{
		{"default siblings", pool([]int{12}, nil), ""},
		{"explicit", pool([]int{8, 4}, []int{4, 0}), ""},
		{"past the hardware threads", pool([]int{20}, []int{8}), ""},
		{"siblings on e", pool([]int{8, 4}, []int{0, 1}), `engine "e": 1 threads on siblings, but its cores have no SMT`},
		{"too few cores", pool([]int{12}, []int{2}), `engine "p": 12 threads with 2 on siblings need 10 cores; it has 8`},
		{"more siblings than cores", pool([]int{6}, []int{4}), `at most 2`},
		{"past, not full", pool([]int{20}, []int{4}), `fill every sibling (8), not 4`},
		{"negative", pool([]int{4}, []int{-1}), `-1 threads on siblings`},
		{"count", pool([]int{4, 4}, []int{0}), `2 engines but 1 sibling counts`},
	} {
		err := tc.p.Validate(s)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if v, err := s.Get("engines.p.smt_yield.scalar"); err != nil || v != 0.3 {
		t.Errorf("engines.p.smt_yield.scalar: %v %v", v, err)
	}
	if !slices.Contains(s.Params(), "engines.p.smt_yield.dram") || slices.Contains(s.Params(), "engines.e.smt_yield.dram") {
		t.Errorf("params: %v", s.Params())
	}
	if _, err := s.Get("engines.e.smt_yield.matmul"); err == nil {
		t.Error("e gives no smt_yield, but its matmul yield reads")
	}
	c := s.Clone()
	c.Engines[0].SMTYield.Matmul = 2
	if s.Engines[0].SMTYield.Matmul != 0.1 {
		t.Error("Clone shares the SMT yields")
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "engines[0].smt_yield.matmul: 2 is outside [-0.5, 1]") {
		t.Errorf("yield 2: %v", err)
	}
	n := model.NewNative("p", 4, 50)
	n.SMT = []int{0}
	if err := n.Validate(s); err == nil || !strings.Contains(err.Error(), "pool plan") {
		t.Errorf("native with siblings: %v", err)
	}
}
