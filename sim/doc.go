// Package sim predicts the throughput of a workload on a SoC under a
// dispatch plan: prompt processing (llama-bench's pp), token generation
// (tg, one token per graph) or both (-pg).
//
// It is an event-driven fluid simulation of each ubatch. Ops that are not
// split run on the plan's main engine; a split op (MUL_MAT_ID) forks into
// one partition per engine, each starting after its pool's wake-up and
// ending at a join. Whenever a partition starts or ends, DRAM bandwidth is
// re-shared among the partitions still streaming.
//
// A pool plan (model.PoolPlan) is stock llama.cpp's one thread pool over
// the cores of one or more clusters: every op is divided among all its
// threads, as ggml's kernels divide it (chunks the fast cores claim more
// of, or a fixed slice a thread), the engines run their shares at once
// sharing DRAM, and the op ends with the slowest; more threads than free
// cores are time-sliced, and each barrier then waits a time slice. See
// pool.go.
//
// Inside an op, work is not even: it alternates memory-heavy and
// compute-heavy bursts (expert by expert, tile by tile). The simulator keeps
// the bursts' duty cycles and computes, for each set of co-running
// partitions, the bandwidth each receives during its memory bursts from the
// chance that the others are bursting at the same moment (a mean-field
// burst model solved to a fixed point). That is what lets an engine that is
// compute-bound on average still be slowed by another's memory bursts, and
// is why the cost of a prediction grows with the number of distinct ops,
// not with tokens x experts.
//
// Generated tokens are simulated graph by graph too, each paying its
// launch and a barrier after each op, but not every one: a token's time is
// affine in its KV depth, so the first token (which follows the prompt)
// and two later ones are simulated and the rest integrated; see
// runner.decode. A tg prediction costs no more than a pp512 one.
//
// A gain's 90% interval (Evaluator.Interval) is first-order by default:
// each uncertain parameter at ±σ, its larger moves of the gain down and up
// added in quadrature, times 1.645 (FirstOrder; it ignores how the
// parameters interact); an Evaluator made with N draws is Monte Carlo.
//
// Results are deterministic: the same inputs give the same numbers, bit for
// bit.
package sim
