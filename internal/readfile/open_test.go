package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe no program writes to fails within OpenWait; one whose
// writer sends nothing fails within IdleWait; one that sends is read.
func TestOpenPipe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("named pipes as Linux makes them")
	}
	defer func(o, i time.Duration) { OpenWait, IdleWait = o, i }(OpenWait, IdleWait)
	OpenWait, IdleWait = 100*time.Millisecond, 100*time.Millisecond
	dir := t.TempDir()
	p := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p, 100); !errors.Is(err, ErrNoWriter) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("no writer: %v", err)
	}
	w := make(chan *os.File)
	go func() {
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		w <- f
	}()
	if _, err := Read(p, 100); !errors.Is(err, ErrNoWriter) || !strings.Contains(err.Error(), "sent nothing") {
		t.Errorf("a silent writer: %v", err)
	}
	(<-w).Close()
	go func() {
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteString("name: x\n")
		f.Close()
	}()
	if b, err := Read(p, 100); err != nil || string(b) != "name: x\n" {
		t.Errorf("a writer: %q %v", b, err)
	}
}
