package cli

import (
	"os"
	"syscall"
)

// StopSignals stop a measuring command the way Ctrl-C does: the running
// benchmark is killed with its process group, every finished measurement
// is already on disk, and --resume continues. SIGHUP is an ssh session
// dropping; SIGQUIT (Ctrl-\) would otherwise dump the goroutines and leave
// the benchmark running.
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
