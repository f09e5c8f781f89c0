// Package cli holds what blsim's commands do once their flags are read:
// the runs of calibrate (and its --bench grid), fit and validate, the
// request flags predict, plot and report share, the version command, man
// pages from the command tree, shell completion of preset names, plot
// kinds, split modes and tests, and llama-bench's habits (comma lists and
// ranges of values, each a run, and its output formats). cmd/blsim
// defines the commands, their flags and help, and calls it.
package cli
