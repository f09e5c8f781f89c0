// Package measure stores what blsim measured: one JSON object per line
// (JSONL), appended and synced to disk as soon as a measurement finishes, so
// that Ctrl-C, a crash or a full disk never loses a finished run, and a
// resumed calibration can skip what is already there.
//
// Every measurement carries its kind (a dispatcher run, a llama-bench run,
// a microbenchmark), the configuration that produced it, its samples and
// their median and spread, and the host it ran on.
package measure
