// Package cli holds what blsim's commands share that is not a flag of one
// command: the version command, man pages from the command tree, shell
// completion of preset names, plot kinds, split modes and tests, and
// llama-bench's habits (comma lists and ranges of values, each a run, and
// its output formats). cmd/blsim wires it to its flags.
package cli
