//go:build unix && !linux

package runner

import "syscall"

// deathSignal does nothing: only Linux has a parent-death signal.
func deathSignal(*syscall.SysProcAttr) {}

// lockSpawner does nothing where there is no parent-death signal.
func lockSpawner() (unlock func()) { return func() {} }
