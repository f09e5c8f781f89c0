package model

// defaultThreads is the most threads an engine runs when no thread count
// is given; see Engine.DefaultThreads.
const defaultThreads = 4

// DefaultThreads is how many threads e runs when a plan's thread count is
// left to blsim (no --engine-threads, --big-threads or --little-threads flag, a
// zero in a settings struct): min(4, e.Cores).
//
// Four is what the seed experiment ran on each RK3588 cluster (llama.cpp,
// 4 big + 4 little threads: its four Cortex-A76 and four Cortex-A55, the
// fork's ORK_BL_LITTLE_THREADS when unset), and the thread count ggml's
// CPU backend starts with when none is set (GGML_DEFAULT_N_THREADS).
// The cap at the engine's cores lets a profile calibrated on a machine
// with fewer cores per cluster (a one-core VM) predict, plot and report
// without thread flags: a plan may not run more threads than cores.
func (e *Engine) DefaultThreads() int { return min(defaultThreads, e.Cores) }
