// Package busy measures what else ran on the machine while a run was
// timed: per CPU, the time the kernel counted busy (/proc/stat) less the
// time of the run's own threads (this process's and, for an external
// benchmark, its child's and their descendants'), the steal time of a
// virtual CPU, and the CPU pressure (/proc/pressure/cpu) where the kernel
// has it. A Watch samples them while the run goes on, so that each thread's
// time is counted on the CPU it ran on; Stop returns the run's
// measure.Interference. WaitQuiet waits for a moment when the CPUs are
// free before a disturbed run is run again.
//
// It needs Linux's procfs; elsewhere Start returns ErrUnsupported and runs
// are recorded without an interference figure.
package busy
