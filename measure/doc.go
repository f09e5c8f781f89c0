// Package measure stores what blsim measured: one JSON object per line
// (JSONL), appended and synced to disk as soon as a measurement finishes, so
// that Ctrl-C, a crash or a full disk never loses a finished run, and a
// resumed calibration can skip what is already there.
//
// Every measurement carries its kind (a dispatcher run, a llama-bench run,
// a microbenchmark), the configuration that produced it, its samples and
// their median and spread, and the host it ran on.
//
// Read returns a file's good records and an error for each bad line,
// reading on; Check and ReadUsable apply the one rule every command uses
// to tell a usable file (a crash's partial last line) from a broken one.
package measure
