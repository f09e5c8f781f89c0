// Package fit fits a SoC profile's free parameters to measurements: the
// throughput of dispatcher runs (blsim's built-in dispatcher, llama-bench,
// figures from a report) predicted by the simulator, with microbenchmark
// values as priors. It reports each fitted value with its standard error,
// flags parameters the data cannot identify and says, from the numbers,
// what the fit did with each (IdentificationOf: left at its prior, moved
// together with others, moved where no run depends on it), and measures
// held-out error. A fit lists the records it was fitted on in the
// profile's provenance (RunDigest, FittedOn), so that Predictions tells
// the points a profile was fitted on (in-sample) from held-out ones.
//
// Runs of one configuration (rounds of a calibration, of a grid) count as
// one throughput, merged by a Stat (Merge): Median, the median of their
// medians, for a quiet board; Best, the fastest sample of any run, for a
// shared or virtual machine whose other tenants only ever slow a run down.
// Holdout fits on the throughputs that match none of a set of patterns
// (HeldOut: words of a run's label, a knob NAME=VALUE, part of its ID) and
// predicts those that match one.
//
// A Job is a fit as blsim fit and blsim calibrate make it, provenance
// stamped; WriteProfile writes its profile. Result.WriteText,
// Validation.WriteText and WriteRegimes print a fit and a validation as
// text, and WriteFit all of it as blsim prints a fit; NoiseOf says how
// noisy the runs were. Parity is what a parity plot of a profile against
// measurements needs: its predictions, and which points it was fitted on.
//
// Fitting runs anywhere; only measuring needs the hardware.
package fit
