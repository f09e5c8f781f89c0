package model

// Background work: a host runs more than llama.cpp. Its OS threads, and on
// a desktop or laptop its session, wake now and then and run for a while.
// While a pool leaves a hardware thread idle, the scheduler runs them
// there (kernel/sched/fair.c: select_idle_sibling looks for an idle core,
// then an idle CPU, before it queues a task behind a busy one), and the
// pool does not notice beyond the SMT sharing it already has. A pool that
// fills every CPU hardware thread leaves them none: each then preempts a
// pool thread, and ggml's threads, which meet at a spinning barrier after
// every graph node, all wait for that one.
//
// How much that costs depends on how long the ops are against the gaps
// between the background bursts. An op of a one-token graph (decode) is
// tens of microseconds, far shorter than the gaps, so every burst lands in
// an op of its own and stalls the whole pool: the pool advances only while
// no background burst holds one of its threads, 1 - BackgroundCPUs of the
// time. An op of a prompt's graph runs for milliseconds and meets many
// bursts, spread over its n threads, each of which absorbs its own: the
// op ends about BackgroundCPUs/n later (the noise amplification of
// bulk-synchronous programs: Petrini, Kerbyson and Pakin, "The Case of the
// Missing Supercomputer Performance", SC 2003; Hoefler, Schneider and
// Lumsdaine, "Characterizing the Influence of System Noise on Large-Scale
// Applications by Simulation", SC 2010). That is why decode turns down
// once a pool fills a chip's SMT siblings while prefill does not.

// MaxBackgroundCPUs bounds Handoff.BackgroundCPUs: the model stalls the
// pool for the share of the time a background burst holds one of its
// threads, which must leave it some time to advance.
const MaxBackgroundCPUs = 0.9

// FillsCPUs says whether pool plan p, with its busy tasks, leaves none of
// s's CPU hardware threads idle: every CPU cluster of s is in the pool,
// with threads (pool threads plus busy tasks) on every hardware thread.
// A --cpu-mask narrows where the pool's threads run, not where other
// processes may, so it is each cluster's whole hardware threads that
// count. False for other plans.
func (p Plan) FillsCPUs(s *SoC) bool {
	if p.Mode != PoolPlan {
		return false
	}
	used := map[string]int{}
	for i, name := range p.Engines {
		used[name] += p.Threads[i] + p.Busy(i)
	}
	for i := range s.Engines {
		e := &s.Engines[i]
		if !e.IsAccelerator() && used[e.Name] < e.HWThreads() {
			return false
		}
	}
	return true
}

// BackgroundStall is the share of a pool op's time that plan p's pool
// waits for the host's background work on s (Handoff.BackgroundCPUs):
// none where the pool leaves a hardware thread idle (FillsCPUs); else
// BackgroundCPUs for an op of a one-token graph (token), and
// BackgroundCPUs/n for a prompt's, n the pool's threads.
func (p Plan) BackgroundStall(s *SoC, token bool) float64 {
	b := s.Handoff.BackgroundCPUs
	if b <= 0 || !p.FillsCPUs(s) {
		return 0
	}
	if token {
		return b
	}
	return b / float64(max(1, p.PoolThreads()))
}
