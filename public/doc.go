// Package public holds the public llama.cpp CPU results blsim is checked
// against, as data, and scores blsim's predictions of them.
//
// Each Row is one measured rate from a public source (a GitHub issue or
// PR, a repository's file): the device and blsim's SoC preset for it, the
// model (a model preset and a llama.cpp quantization scheme, or a
// workload preset), the thread count and how the threads sat on the
// clusters, the test (pp512, tg128, or the row's own), the measured t/s,
// and the build and its date, because the kernels changed over time
// (Era). Rows of one thread sweep on one machine share a Sweep.
//
// Score predicts every row it can express and scores three things, with
// nothing tuned per row:
//   - the absolute rate: the error of each row, and their mean absolute
//     percentage error (target 20%);
//   - the ratio of each row to its sweep's measured best, against blsim's
//     ratio of the same two rows (target 10%): what decides a user's -t,
//     and independent of the per-core rate being right;
//   - the best -t of each sweep: blsim's best must be the measured best or
//     within 5% of it.
//
// A row blsim cannot express stays in the table with the reason: its SoC
// preset does not exist yet (one of PlannedSoCs), its model's config is
// not public, more threads than cores (SMT, issue 27), a kernel blsim
// does not model. A row whose measured rate set a preset value (Row.Sets)
// is shown and never scored. A row that misses for a mechanism blsim lacks
// (Row.Gap: unpinned OS placement, oversubscription collapse) is shown,
// must miss, and is left out of the targets, naming the issue that brings
// the mechanism.
package public
