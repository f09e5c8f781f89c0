// Package llamabench reads and writes the output of llama-bench, llama.cpp's
// benchmark tool, so that blsim can calibrate its cost model against real
// runs and print its own benchmark results in a shape llama-bench users know.
//
// llama-bench has five printers, selected with -o: json (a pretty-printed
// array of objects), jsonl (one object per line), csv (a bare header row, then
// rows whose values are all quoted), md (the default: a markdown table whose
// columns depend on which knobs were varied, followed by a "build: <commit>
// (<number>)" footer) and sql (CREATE TABLE, then one INSERT per test). All
// five are read and written here; Format names them and DetectFormat guesses
// one from the start of a file.
//
// A Reader streams Records out of one input. Every field of a record is kept
// verbatim in Record.Fields, including fields this package does not know, so
// that changes to llama-bench's schema lose nothing; the fields blsim needs
// are also parsed into typed Record fields. A record that cannot be used (bad
// syntax, a malformed number, no throughput at all) is reported as a
// *SyntaxError naming the file and line, and reading goes on with the next
// record. Parse collects everything a Reader yields.
//
// Write prints records the way llama-bench's printers do: the same field
// names in the same order, the same number formatting (C's %f for averages,
// %g for samples), and in jsonl the same missing space before "samples_ts".
// What Write prints, a Reader reads back.
//
// The markdown printer shows rounded values ("19.71 GiB", "34.66 B",
// "26.26 ± 0.12") and omits knobs left at their defaults, so records read
// from markdown carry approximate sizes, no samples and no nanosecond times,
// and take llama-bench's defaults for the knobs whose columns are absent.
package llamabench
