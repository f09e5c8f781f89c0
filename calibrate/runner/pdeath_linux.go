package runner

import (
	"runtime"
	"syscall"
)

// deathSignal has the kernel send the command SIGKILL when blsim dies
// (PR_SET_PDEATHSIG), even by SIGKILL, so that no benchmark outlives it and
// skews the --resume run. It reaches the command itself: a wrapper
// script's own children are killed with the group on a timeout or Ctrl-C,
// but not when blsim is killed outright, unless the script execs the
// benchmark (exec llama-bench …); a child that calls setsid leaves blsim's
// reach altogether.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// lockSpawner keeps the goroutine that starts and waits for the command on
// one OS thread until it returns: Linux sends the parent-death signal when
// the thread that forked exits, not the process.
func lockSpawner() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
