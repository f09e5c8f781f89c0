package probe

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// The stream probe the calibration ran before StreamReadTogether, kept as
// BenchmarkStreamTogether's baseline (docs/busy-machine.md compares the
// two): only tests call it.

// contention holds the bandwidth of each of two CPU sets while the other
// streams at the same time.
type contention struct {
	A Stats // GB/s read by set a while set b streams
	B Stats // GB/s read by set b while set a streams
}

// streamReadContended measures the streaming read bandwidth of set a while
// set b streams from its own memory at the same time, and then the reverse.
// Each set reads workingSetBytes in all (0 means DefaultWorkingSet), one
// thread per CPU. In a sample the background set starts first and streams
// until every foreground thread has finished one pass; the sample is the
// foreground's bytes over its span, as in StreamRead. Compare with StreamRead
// on each set alone for the contention curve.
func streamReadContended(a, b []int, workingSetBytes int64, s *Settings) (contention, error) {
	const unit = "GB/s"
	out := contention{A: Stats{Unit: unit}, B: Stats{Unit: unit}}
	if len(a) == 0 || len(b) == 0 {
		return out, errors.New("probe: contended stream needs two non-empty cpu sets")
	}
	all := append(append([]int(nil), a...), b...)
	var wa, wb int
	st, err := openStreams(all, s, "contended stream", func(cfg settings) (func(int) int, error) {
		var err error
		if wa, err = wordsPerThread(workingSetBytes, len(a), cfg); err != nil {
			return nil, err
		}
		wb, err = wordsPerThread(workingSetBytes, len(b), cfg)
		return func(w int) int {
			if w < len(a) {
				return wa
			}
			return wb
		}, err
	})
	if err != nil {
		return out, err
	}
	defer st.p.Close()
	p, bufs, res, cfg := st.p, st.bufs, st.res, st.cfg
	measure := func(fgA bool) func() (float64, error) {
		return func() (float64, error) {
			var bgStarted, fgDone atomic.Int32
			var stop atomic.Bool
			nfg, nbg := int32(len(a)), int32(len(b))
			if !fgA {
				nfg, nbg = nbg, nfg
			}
			p.Run(func(w int) {
				if (w < len(a)) != fgA { // background
					bgStarted.Add(1)
					res[w].v += streamUntil(bufs[w], &stop)
					return
				}
				for bgStarted.Load() < nbg {
				}
				res[w].t0 = now()
				res[w].v += sum64(bufs[w])
				res[w].t1 = now()
				if fgDone.Add(1) == nfg {
					stop.Store(true)
				}
			})
			fg, words := res[:len(a)], wa
			if !fgA {
				fg, words = res[len(a):], wb
			}
			return float64(8*words*len(fg)) / float64(span(fg)), nil
		}
	}
	if out.A, err = repeat(cfg, unit, measure(true)); err != nil {
		return out, fmt.Errorf("probe: contended stream of cpus %v: %w", a, err)
	}
	if out.B, err = repeat(cfg, unit, measure(false)); err != nil {
		return out, fmt.Errorf("probe: contended stream of cpus %v: %w", b, err)
	}
	return out, nil
}
