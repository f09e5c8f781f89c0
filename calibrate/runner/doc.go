// Package runner drives an external benchmark, typically llama-bench from a
// llama.cpp build with big/little knobs, over a grid of environment
// variables and command-line flags, and stores every run as a measurement
// (package measure) for the fit.
//
// The command is split into words by SplitCommand and executed directly,
// never through a shell: no globbing, no $ expansion, no pipes or
// redirections. Knob values are passed to the program verbatim, as
// environment variables or as extra arguments, whatever characters they hold.
//
// A Grid holds the command and its axes; Points expands them, in a
// deterministic order, into the runs to make, each with a stable ID that
// --resume uses to skip runs already measured. ParseValues reads an axis's
// values ("0.05:0.30:0.05", "0,50", "4"); ParseGridFile reads the same grid
// from YAML.
//
// A Mapping says which knobs mean what to blsim's model: which one turns the
// big/little split on, which holds the little fraction, the split mode, the
// poll level and the thread counts. DefaultMapping knows the ORK_* names of
// the seed experiment and llama-bench's own -t and --poll; ParseMapping reads
// another fork's names from YAML.
//
// Run executes the grid: per-run timeout (the whole process group is
// killed), optional unrecorded warm-up runs, retries, and one measurement per
// prompt-processing test printed (any llama-bench output format). A run that
// fails - a non-zero exit, a timeout, no output, output that is not
// llama-bench's, a command that cannot be started - is recorded with its
// reason, and the grid goes on. Cancelling the context stops the grid; every
// finished run is already on disk. With Config.Rounds the grid is run
// several times over (Schedule), each round with Config.Shuffle in an order
// of its own, so that a machine's slow spell falls on different points each
// round. Config.Header, Config.LineProgress and Summary.Line are the lines
// to print before, during and after a run; RunFile runs a grid into a
// measurements file and prints them.
//
// Settings are a grid as a user gives it, a grid file and the command,
// axes and run settings beside it (a command line's, which win over the
// file's); Settings.Config makes the Config, its errors telling which
// setting is wrong (model.SettingError) for the caller to name as it names it.
package runner
