//go:build !unix

package runner

import "os/exec"

// setProcessGroup keeps exec.CommandContext's default: cancelling kills
// the command's process (not its children, which this platform does not
// group for us).
func setProcessGroup(cmd *exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(cmd *exec.Cmd) {}

// lockSpawner does nothing where there is no parent-death signal.
func lockSpawner() (unlock func()) { return func() {} }
