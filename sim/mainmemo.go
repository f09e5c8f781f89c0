package sim

import (
	"sync"

	"github.com/blsim/blsim/model"
)

// A main-engine op's timing in a prompt graph (runner.mainTiming) is a
// function of the op, the engine and its threads, the SoC, and the
// graph's tokens and weight bytes: not of when it runs. Every layer's
// ops are alike, and a split plan runs its ops that are not split as
// native does, so a run remembers each timing once (mainMemo), and an
// Evaluator shares one memo among all the runs on one SoC (native and
// every split of a draw, say): those runs then solve only their split
// ops. The values are the very numbers a solve gives, so results do not
// change, bit for bit.

// mainKey is what a main-engine op's timing depends on besides the SoC.
type mainKey struct {
	op          model.Op // Name and Layer cleared
	engine      string
	threads     int
	graphTokens float64
	graphBytes  float64
}

type mainVal struct {
	p  part
	tm timing
}

// mainMemo remembers main-engine op timings on one SoC; safe for
// concurrent use.
type mainMemo struct {
	mu sync.Mutex
	m  map[mainKey]mainVal
}

func newMainMemo() *mainMemo { return &mainMemo{m: map[mainKey]mainVal{}} }

func (m *mainMemo) get(k mainKey) (mainVal, bool) {
	m.mu.Lock()
	v, ok := m.m[k]
	m.mu.Unlock()
	return v, ok
}

func (m *mainMemo) put(k mainKey, v mainVal) {
	m.mu.Lock()
	m.m[k] = v
	m.mu.Unlock()
}

// mainKeyOf is op's key in r, and whether its timing may be remembered:
// in a prompt graph of a plan that is not a pool (a pool's rates depend
// on its cores' sharing).
func (r *runner) mainKeyOf(op *model.Op) (mainKey, bool) {
	if r.mains == nil || r.tokenMemo != nil || r.cores != nil {
		return mainKey{}, false
	}
	k := mainKey{op: *op, engine: r.plan.Engines[0], threads: r.plan.Threads[0], graphTokens: r.graphTokens, graphBytes: r.graphBytes}
	k.op.Name, k.op.Layer = "", 0
	return k, true
}
