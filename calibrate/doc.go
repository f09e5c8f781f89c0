// Package calibrate measures a machine and fits a SoC profile to it: it
// runs the microbenchmarks of package probe on each cluster, builds a prior
// profile from them, times the built-in dispatcher (package dispatch) over a
// grid of plans, and fits the profile to those runs (package fit). Every
// finished measurement is appended to a measurements file at once, so an
// interrupted calibration loses nothing and a resumed one skips what is
// done. Steps lists what a calibration measures, Measure measures it, and
// Host, Header, LineProgress and NewProgress describe it as blsim
// calibrate prints it. A Run holds a whole calibration's settings: Open
// checks them and finds the clusters and the host, Calibration.Start lists
// the steps and opens the measurements file, Calibration.Measure takes
// them.
// AdaptGrid fits a benchmark grid (package runner) to the prior profile
// its runs will be fitted to, and CheckHoldout checks that holdout
// patterns split it.
//
// Measuring needs Linux; building the prior and fitting run anywhere.
package calibrate
