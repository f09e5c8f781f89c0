//go:build unix

package runner

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own and
// makes cancelling it (timeout, Ctrl-C) kill the whole group, so that
// children the benchmark started (a wrapper script's llama-bench, a
// background sleep) die with it. Being in its own group, the command also
// does not receive the terminal's SIGINT: Run stops it itself. On Linux
// the command also gets SIGKILL when blsim dies however it dies (SIGKILL,
// an ssh drop): see deathSignal.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// killGroup kills what is left of the command's process group after the
// command itself has exited: children it left running, whether or not
// they hold its output open.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
