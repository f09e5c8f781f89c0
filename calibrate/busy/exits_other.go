//go:build !linux

package busy

// threadNow cannot read a thread's CPU time here.
func threadNow() (ThreadExit, bool) { return ThreadExit{}, false }
