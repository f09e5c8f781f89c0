package sim

import (
	"math"

	"github.com/blsim/blsim/model"
)

// part is one engine's partition of one op: what it must move and compute.
type part struct {
	engine   int
	bytes    float64 // DRAM bytes
	computeS float64 // seconds of arithmetic at the engine's rate
	llcS     float64 // seconds reading weights the shared cache kept, a load like DRAM's
	overlap  float64 // share of compute that overlaps the memory bursts
	capBs    float64 // most bytes/s the engine pulls alone
	slowdown float64 // multiplier on computeS (forfeited fast path); 1 = none
	ops      float64 // arithmetic operations
	private  bool    // streams from memory of its own, not the SoC's DRAM
	// streamBs, when positive, is the sum of the engine's threads' own
	// stream rates, whose phases are independent
	// (model.Engine.IndependentThreadLoads): the engine then draws its
	// threads' mean demand steadily (steady).
	streamBs float64
}

// serialS is a thread's time through its share when its loads run at its
// own stream rate: the loads (with the compute they carry) and then the
// rest of the compute. Only for a part with streamBs.
func (p part) serialS(computeS float64) float64 {
	over := p.overlap * computeS
	return p.llcS + math.Max(p.bytes/p.streamBs, over) + computeS - over
}

// steady says whether the part's threads load with independent phases.
func (p part) steady() bool { return p.streamBs > 0 && p.bytes > 0 }

// timing is a partition's speed while a given set of partitions co-runs.
type timing struct {
	totalS   float64 // seconds for the whole partition at this speed
	memS     float64 // seconds in memory-heavy bursts
	stallS   float64 // of those, seconds waiting on DRAM beyond the compute
	capS     float64 // of stallS, what the engine's cap adds to the DRAM's own (Bound.EngineCap)
	duty     float64 // memS / totalS
	demandBs float64 // bandwidth asked for during a memory burst
	bwBs     float64 // mean bandwidth received during memory bursts
}

// solve returns each partition's timing when they all run at once, sharing
// DRAM of sustained bandwidth totalBs by policy. A partition alternates
// memory bursts (which move its bytes and carry overlap*compute) and
// compute bursts (the rest of its compute). The chance that partition j is
// bursting while i bursts is j's duty cycle; the bandwidth i receives is the
// expectation over which others are bursting. Duty cycles depend on that
// bandwidth, so the system is iterated to a fixed point.
func solve(parts []part, totalBs float64, policy model.Sharing, out []timing) {
	n := len(parts)
	for i, p := range parts {
		c := p.computeS * p.slowdown
		d := p.capBs
		switch {
		case p.steady():
			// Threads out of phase: the engine asks for their mean.
			d = math.Min(d, p.bytes/p.serialS(c))
		case p.overlap > 0 && p.bytes > 0:
			// A burst whose overlapped compute is slower than its loads
			// asks only for what the compute consumes.
			d = math.Min(d, p.bytes/(p.overlap*c))
		}
		d = math.Min(d, totalBs)
		out[i] = timing{demandBs: d, bwBs: d}
		out[i].finish(p, c, totalBs)
	}
	if n == 1 {
		return
	}
	var dbuf, abuf [8]float64
	demand, alloc := dbuf[:0], abuf[:0]
	if n > len(dbuf) {
		demand, alloc = make([]float64, 0, n), make([]float64, 0, n)
	}
	demand, alloc = demand[:n], alloc[:n]
	for iter := 0; iter < 60; iter++ {
		changed := 0.0
		for i, p := range parts {
			if p.bytes == 0 {
				continue
			}
			// Expectation over the 2^(n-1) states of the other partitions.
			bw := 0.0
			for mask := 0; mask < 1<<n; mask++ {
				if mask&(1<<i) == 0 {
					continue
				}
				prob := 1.0
				for j := range parts {
					if j == i {
						continue
					}
					if mask&(1<<j) != 0 {
						prob *= out[j].duty
						demand[j] = out[j].demandBs
					} else {
						prob *= 1 - out[j].duty
						demand[j] = 0
					}
				}
				if prob == 0 {
					continue
				}
				demand[i] = out[i].demandBs
				shareBandwidth(alloc, demand, totalBs, policy)
				bw += prob * alloc[i]
			}
			// Damped update keeps the iteration from oscillating.
			nbw := 0.5*out[i].bwBs + 0.5*bw
			changed = math.Max(changed, math.Abs(nbw-out[i].bwBs)/out[i].bwBs)
			out[i].bwBs = nbw
			out[i].finish(p, p.computeS*p.slowdown, totalBs)
		}
		if changed < 1e-12 {
			break
		}
	}
}

// finish derives the times from the bandwidth received, of a DRAM of
// sustained bandwidth totalBs.
func (t *timing) finish(p part, computeS, totalBs float64) {
	if p.steady() {
		t.finishSteady(p, computeS, totalBs)
		return
	}
	load := p.llcS
	if p.bytes > 0 {
		load += p.bytes / t.bwBs
	}
	if load == 0 {
		t.memS, t.stallS, t.capS, t.totalS = 0, 0, 0, computeS
	} else {
		over := p.overlap * computeS
		t.memS = math.Max(load, over)
		t.stallS = t.memS - over
		t.totalS = t.memS + (computeS - over)
		// The engine's cap below the DRAM's bandwidth: the stall alone at
		// its cap less the stall alone at the DRAM's whole bandwidth is
		// the cap's (the engine's port or its threads' streams); the rest
		// is the DRAM's own and its sharing.
		if p.bytes > 0 && p.capBs < totalBs {
			stallAt := func(bw float64) float64 {
				if p.overlap > 0 {
					bw = math.Min(bw, p.bytes/over)
				}
				return math.Max(0, p.llcS+p.bytes/bw-over)
			}
			t.capS = math.Min(t.stallS, math.Max(0, stallAt(p.capBs)-stallAt(totalBs)))
		} else {
			t.capS = 0
		}
	}
	if t.totalS > 0 {
		t.duty = t.memS / t.totalS
	}
}

// finishSteady is finish for a part whose threads load with independent
// phases: each thread takes its serial time unless the bandwidth the
// engine receives cannot carry the bytes in it, and the engine streams
// all the while (duty 1).
func (t *timing) finishSteady(p part, computeS, totalBs float64) {
	serial := p.serialS(computeS)
	at := func(bw float64) float64 { return math.Max(serial, p.llcS+p.bytes/bw) }
	t.totalS = at(t.bwBs)
	t.memS, t.duty = t.totalS, 1
	t.stallS = math.Max(0, t.totalS-computeS)
	t.capS = 0
	if p.capBs < totalBs {
		t.capS = math.Min(t.stallS, math.Max(0, at(p.capBs)-at(totalBs)))
	}
}

// peakUtil is the highest DRAM utilisation among the burst states that have
// a non-negligible chance: all partitions whose duty exceeds 1% bursting.
func peakUtil(parts []part, ts []timing, totalBs float64, policy model.Sharing) float64 {
	n := len(parts)
	var dbuf, abuf [8]float64
	demand, alloc := dbuf[:0], abuf[:0]
	if n > len(dbuf) {
		demand, alloc = make([]float64, 0, n), make([]float64, 0, n)
	}
	demand, alloc = demand[:n], alloc[:n]
	for i := range parts {
		if ts[i].duty > 0.01 {
			demand[i] = ts[i].demandBs
		}
	}
	shareBandwidth(alloc, demand, totalBs, policy)
	sum := 0.0
	for _, a := range alloc {
		sum += a
	}
	return sum / totalBs
}

// memoParts is the most partitions a solve is memoised for; memoSize is
// how many distinct solves a run remembers.
const (
	memoParts = 4
	memoSize  = 64
)

// solved is one remembered solve.
type solved struct {
	n     int
	parts [memoParts]part
	out   [memoParts]timing
}

// solve is the package's solve, memoised per run: the same op's partitions
// recur in every layer, and solve is a pure function of its inputs (the
// bandwidth and policy are fixed within a run), so a remembered answer is
// the same bit for bit. A run has a handful of distinct solves, so a
// linear scan beats hashing the partitions.
func (r *runner) solve(parts []part, out []timing) {
	n := len(parts)
	if n < 2 || n > memoParts {
		solve(parts, r.totalBs, r.soc.DRAM.Sharing, out)
		return
	}
	for k := range r.solved {
		m := &r.solved[k]
		if m.n == n && samePart(m.parts[:n], parts) {
			copy(out, m.out[:n])
			return
		}
	}
	solve(parts, r.totalBs, r.soc.DRAM.Sharing, out)
	if len(r.solved) < memoSize {
		m := solved{n: n}
		copy(m.parts[:], parts)
		copy(m.out[:], out[:n])
		r.solved = append(r.solved, m)
	}
}

func samePart(a, b []part) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
