package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOutputsNeverDestroyTheirTarget: -o and --measurements naming a
// device, a FIFO, a folder, a symlink, or an input under another name (a
// hard link) are refused with one line before anything runs, and the
// target is left as it was.
func TestOutputsNeverDestroyTheirTarget(t *testing.T) {
	dir := t.TempDir()
	runs := writeRuns(t, dir)
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(filepath.Join(dir, "elsewhere.yaml"), link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.yaml")
	if err := os.Link(runs, hard); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	type target struct{ path, want string }
	targets := []target{
		{fifo, "is not a regular file"},
		{link, "is a symbolic link"},
		{hard, "is also an input"},
		{folder, "is not a regular file"},
	}
	if os.Geteuid() == 0 {
		dev := filepath.Join(dir, "null")
		if err := unix.Mknod(dev, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err == nil {
			targets = append(targets, target{dev, "is not a regular file"})
		}
	}
	before, _ := os.ReadFile(runs)
	for _, tg := range targets {
		for _, args := range [][]string{
			{"fit", "--soc", "rk3588", "--measurements", runs, "-o", tg.path},
			{"plot", "parity", "--soc", "rk3588", "--measurements", runs, "-o", tg.path + ".png"},
			{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--quick", "--measurements", filepath.Join(dir, "new.jsonl"), "-o", tg.path},
			{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--quick", "--no-fit", "--measurements", tg.path},
		} {
			if args[0] == "plot" && tg.want != "is a symbolic link" {
				continue // plot's output ends in .png: only the link case applies
			}
			if args[0] == "calibrate" && tg.path == hard {
				continue // the hard link is an input of fit's only
			}
			if args[0] == "plot" {
				os.Symlink(filepath.Join(dir, "elsewhere.png"), tg.path+".png")
			}
			_, stderr, code := runCLI(t, args...)
			if code == 0 || !strings.Contains(stderr, tg.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("%s onto %s: exit %d, stderr %q, want one line saying %q", args[0], filepath.Base(tg.path), code, stderr, tg.want)
			}
		}
		if st, err := os.Lstat(tg.path); err != nil || st.Mode().IsRegular() && tg.path != hard {
			t.Errorf("%s was replaced: %v", tg.path, err)
		}
		if st, err := os.Stat(hard); err != nil || !os.SameFile(st, mustStat(t, runs)) {
			t.Errorf("the hard link to the measurements was replaced: %v", err)
		}
	}
	if after, _ := os.ReadFile(runs); !bytes.Equal(before, after) {
		t.Error("the measurements were changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "new.jsonl")); err == nil {
		t.Error("calibrate measured before refusing its output")
	}
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSecondWriterRefused: while one calibrate --bench appends to a
// measurements file, a second one on the same file is refused with the
// first one's pid, and measures nothing.
func TestSecondWriterRefused(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bench := filepath.Join(dir, "llama-bench")
	os.WriteFile(bench, []byte(hangBench), 0o755)
	hang, pidfile, runs := filepath.Join(dir, "hang"), filepath.Join(dir, "child.pid"), filepath.Join(dir, "runs.jsonl")
	os.WriteFile(hang, nil, 0o644)
	args := []string{"calibrate", "--bench", bench, "--workload", "testdata/tiny-moe.yaml", "--no-fit",
		"--env", "ORK_MOE_BIGLITTLE=1", "--env", "ORK_BL_LITTLE_FRAC=0.1,0.5", "--measurements", runs}
	first := exec.Command(self, args...)
	first.Env = append(os.Environ(), "BLSIM_TEST_MAIN=1", "HANG="+hang, "PIDFILE="+pidfile)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Process.Kill(); _ = first.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(pidfile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first writer never reached its hanging run")
		}
	}
	second := exec.Command(self, append(args, "--resume")...)
	second.Env = append(os.Environ(), "BLSIM_TEST_MAIN=1")
	out, err := second.CombinedOutput()
	want := "being written by another process (pid " + strconv.Itoa(first.Process.Pid) + ")"
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("second writer: %v\n%s\nwant %q", err, out, want)
	}
	_ = first.Process.Signal(syscall.SIGTERM)
}
