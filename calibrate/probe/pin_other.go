//go:build !linux

package probe

const haveLinux = false

// AllowedCPUs returns ErrNeedLinux on this system.
func AllowedCPUs() ([]int, error) { return nil, ErrNeedLinux }

func checkCPU(int) error { return ErrNeedLinux }

// Pin returns ErrNeedLinux on this system.
func Pin(int) error { return ErrNeedLinux }

func pinSet([]int) error { return ErrNeedLinux }

// Unpin returns ErrNeedLinux on this system.
func Unpin() error { return ErrNeedLinux }

// CurrentCPU returns ErrNeedLinux on this system.
func CurrentCPU() (int, error) { return -1, ErrNeedLinux }

func gettid() int { return 0 }

func threadAsleep(int) (bool, error) { return false, ErrNeedLinux }

func threadCPUNanos() (int64, error) { return 0, ErrNeedLinux }
