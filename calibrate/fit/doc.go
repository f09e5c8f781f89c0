// Package fit fits a SoC profile's free parameters to measurements: the
// throughput of dispatcher runs (blsim's built-in dispatcher, llama-bench,
// figures from a report) predicted by the simulator, with microbenchmark
// values as priors. It reports each fitted value with its standard error,
// flags parameters the data cannot identify, and measures held-out error.
//
// Fitting runs anywhere; only measuring needs the hardware.
package fit
