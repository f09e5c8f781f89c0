// Package plots draws blsim's predictions: the split curve (throughput
// against the little engine's share, with native and the balance point),
// the timeline of one ubatch (a Gantt chart per engine over DRAM
// utilisation), the parity plot (predicted against measured, y = x, a ±5%
// band, error bars, labels, MAPE), the what-if heatmap (the best split's
// gain over native across two SoC parameters, diverging colours centred on
// 0, the parity contour, the studied SoC marked) and the roofline (each
// engine's compute and bandwidth roofs with the ops placed by arithmetic
// intensity). Figures are built from plain data (SplitData,
// TimelineData, ParityData, predict.WhatIf, RooflineData): views of one
// predict.Prediction (SplitOf, predict.WhatIfOf, and its Traces for
// TimelineOf and RooflineOf), so a figure shows the numbers the
// prediction's table prints. Plots simulates nothing, computes no sweep and reads no
// measurement file: it imports neither calibrate nor presets. Figures are
// written as PNG, SVG or PDF by Save or Write. Colours
// are the Okabe–Ito palette and, for the heatmap, Moreland's blue–red
// diverging map, both safe for the common forms of colour blindness.
//
// Output is deterministic: the same data gives byte-identical PNG and SVG
// files. PDF files differ only in their /CreationDate and /ModDate entries,
// which the PDF library sets to the current time.
package plots
