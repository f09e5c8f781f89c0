// Package plots draws blsim's predictions: the split curve (throughput
// against the little engine's share, with native and the balance point) and
// the timeline of one ubatch (a Gantt chart per engine over DRAM
// utilisation). Figures are built from plain data (SplitData, TimelineData),
// which SweepSplit and SimTimeline compute from a SoC, a workload and a plan,
// and are written as PNG, SVG or PDF by Save or Write.
//
// Output is deterministic: the same data gives byte-identical PNG and SVG
// files. PDF files differ only in their /CreationDate and /ModDate entries,
// which the PDF library sets to the current time.
package plots
