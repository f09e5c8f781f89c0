// Package progress draws how far a long task has got: a bar with a count
// of the steps done and an estimate of the time left, redrawn on one line
// (github.com/schollz/progressbar). Terminal tells the writers a bar suits
// from those (a log, a pipe) that are better served by plain lines.
package progress
