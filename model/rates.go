package model

import "math"

// ThreadRate is the throughput multiplier of n threads relative to one.
func (e *Engine) ThreadRate(n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(n) / (1 + e.ThreadScalingLoss*float64(n-1))
}

// SpinWindowUS is how long a pool spins before sleeping at the given poll.
func (h *Handoff) SpinWindowUS(poll int) float64 {
	return float64(poll) * h.SpinWindowUSPerPoll
}

// WakeUS is what it costs to start work on a pool that has been idle for
// idleUS at the given poll level: a spin wake inside the spin window, a
// futex wake plus the sleep-exit cost past it: all of it, or, where
// SleepExitAfterUS is set, the share ExitShare gives, up to all.
func (h *Handoff) WakeUS(idleUS float64, poll int) float64 {
	if idleUS <= h.SpinWindowUS(poll) {
		return h.SpinWakeUS
	}
	return h.FutexWakeUS + h.SleepExitUS*h.ExitShare(idleUS)
}

// ExitShare is the share of the sleep exit a pool pays after idleUS of
// idle: 1 without SleepExitAfterUS or past it; below it, linear between
// (0, 0), the measured points of SleepExitByIdle and (SleepExitAfterUS, 1).
func (h *Handoff) ExitShare(idleUS float64) float64 {
	if idleUS >= h.SleepExitAfterUS {
		return 1
	}
	x0, y0 := 0.0, 0.0
	for i := 0; i <= len(h.SleepExitByIdle); i++ {
		p := IdleShare{IdleUS: h.SleepExitAfterUS, Share: 1}
		if i < len(h.SleepExitByIdle) {
			p = h.SleepExitByIdle[i]
		}
		if idleUS <= p.IdleUS && p.IdleUS > x0 {
			return y0 + (p.Share-y0)*(max(idleUS, 0)-x0)/(p.IdleUS-x0)
		}
		x0, y0 = p.IdleUS, p.Share
	}
	return 1
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// MatmulGOPS is the engine's matmul rate with threads threads for kernel
// class class, in giga-operations per second.
func (e *Engine) MatmulGOPS(class string, threads int) float64 {
	return e.KernelOpsPerCycle[class] * e.ClockGHz * e.ThreadRate(threads)
}

// ClockAt is the engine's clock with busy of its cores busy:
// ClockGHzByBusyCores where it lists that count, else ClockGHz.
func (e *Engine) ClockAt(busy int) float64 {
	if busy >= 1 && busy <= len(e.ClockGHzByBusyCores) {
		return e.ClockGHzByBusyCores[busy-1]
	}
	return e.ClockGHz
}

// AtBusy is the engine as threads threads run it: with its clock at
// ClockAt of the cores they keep busy (a copy), or itself without a list.
func (e *Engine) AtBusy(threads int) *Engine {
	if len(e.ClockGHzByBusyCores) == 0 {
		return e
	}
	c := *e
	c.ClockGHz = e.ClockAt(min(threads, e.Cores))
	return &c
}

// WalkEfficiency is the share of the kernel rate a weight walk for tokens
// tokens reaches: GemvEfficiency g for one token, 1 from token_tile
// tokens on. Each walk costs its tokens' multiply-adds plus a load cost
// amortised over them: at n tokens the time per token is 1 + (1/g - 1) *
// (T/n - 1)/(T - 1) times a full tile's (T the token tile), which is 1/g
// at n = 1 and 1 at n = T.
func (e *Engine) WalkEfficiency(tokens float64) float64 {
	return e.WalkEfficiencyOf("", tokens)
}

// WalkEfficiencyOf is WalkEfficiency for a walk over weights of GGML type
// typ: its own GemvEfficiencyByType is g where it has one ("": none).
func (e *Engine) WalkEfficiencyOf(typ string, tokens float64) float64 {
	g, t := e.GemvEfficiency, float64(max(e.TokenTile, 2))
	if v, ok := e.GemvEfficiencyByType[typ]; ok {
		g = v
	}
	if g <= 0 || g >= 1 || tokens >= t {
		return 1
	}
	n := math.Max(tokens, 1)
	return 1 / (1 + (1/g-1)*(t/n-1)/(t-1))
}

// GraphOverlap is the memory-compute overlap of the ops of a graph of
// tokens tokens: GemvOverlap for one (when set), MemComputeOverlap for
// more.
func (e *Engine) GraphOverlap(tokens float64) float64 {
	if e.GemvOverlap > 0 && tokens <= 1 {
		return e.GemvOverlap
	}
	return e.MemComputeOverlap
}

// LLCHitShare is the share of a weight that a graph touches with
// probability touch found in the shared cache from earlier graphs, when a
// graph walks graphBytes of weights: min(1, touch*C/graphBytes) with C the
// usable shared cache, so a cache that holds a quarter of what a graph
// walks keeps a quarter of the weights every graph touches (a replacement
// policy that resists thrashing keeps part of a loop larger than itself).
// Zero without LLCBandwidthGBs.
func (e *Engine) LLCHitShare(touch, graphBytes float64) float64 {
	if e.LLCBandwidthGBs <= 0 || graphBytes <= 0 || touch <= 0 {
		return 0
	}
	c := e.CacheUsableFrac * e.SharedCacheKiB * 1024
	return math.Min(1, touch*c/graphBytes)
}

// BandwidthGBs is the most DRAM bandwidth the engine pulls alone with
// threads threads: its cap, or threads times its per-thread bandwidth when
// that is less.
func (e *Engine) BandwidthGBs(threads int) float64 {
	if e.BandwidthPerThreadGBs > 0 && threads > 0 {
		return math.Min(e.BandwidthMaxGBs, float64(threads)*e.BandwidthPerThreadGBs)
	}
	return e.BandwidthMaxGBs
}

// ScalarGOPS is the engine's rate for non-matmul work with threads threads.
func (e *Engine) ScalarGOPS(threads int) float64 {
	return e.ScalarOpsPerCycle * e.ClockGHz * e.ThreadRate(threads)
}

// CacheBytesPerThread is the cache one thread can keep its weight slice in
// when sharedBy threads share the engine's shared cache.
func (e *Engine) CacheBytesPerThread(sharedBy int) float64 {
	if sharedBy < 1 {
		sharedBy = 1
	}
	return e.CacheUsableFrac * 1024 * (e.L2KiBPerCore + e.SharedCacheKiB/float64(sharedBy))
}
