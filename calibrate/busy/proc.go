package busy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// userHZ is the unit of the kernel's CPU times in /proc/stat and
// /proc/PID/stat (USER_HZ, sysconf(_SC_CLK_TCK)): 100 on every Linux
// architecture.
const userHZ = 100

// ErrUnsupported: the system has no procfs to read CPU times from.
var ErrUnsupported = errors.New("busy: no /proc/stat: CPU interference cannot be measured here")

// cpuTimes are one CPU's counters from /proc/stat, in seconds.
type cpuTimes struct {
	busy, steal float64
}

// readStat reads the per-CPU lines of root/stat: busy time (user, nice,
// system, irq, softirq; guest time is part of user) and steal, by CPU
// number.
func readStat(root string) (map[int]cpuTimes, error) {
	b, err := os.ReadFile(filepath.Join(root, "stat"))
	if err != nil {
		return nil, err
	}
	out := map[int]cpuTimes{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		var v [8]float64
		for i := 1; i < len(f) && i <= 8; i++ {
			if v[i-1], err = strconv.ParseFloat(f[i], 64); err != nil {
				return nil, fmt.Errorf("busy: %s: %s: field %d %q: %w", filepath.Join(root, "stat"), f[0], i, f[i], err)
			}
		}
		// user nice system idle iowait irq softirq steal
		out[cpu] = cpuTimes{busy: (v[0] + v[1] + v[2] + v[5] + v[6]) / userHZ, steal: v[7] / userHZ}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("busy: %s: no per-CPU line", filepath.Join(root, "stat"))
	}
	return out, nil
}

// taskTime is one thread's CPU time (user and system, seconds) and the
// CPU it is on or last ran on.
type taskTime struct {
	cpu  int
	secs float64
}

// parseTaskStat reads a /proc/PID/stat or /proc/PID/task/TID/stat line:
// utime, stime (fields 14 and 15) and processor (field 39). The command
// name, field 2, may hold spaces and parentheses: fields are counted from
// its closing one.
func parseTaskStat(b []byte) (taskTime, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return taskTime{}, errors.New("no command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): field k is f[k-3].
	if len(f) < 39-3+1 {
		return taskTime{}, fmt.Errorf("%d fields, want at least 39", len(f)+2)
	}
	ut, err1 := strconv.ParseFloat(f[14-3], 64)
	st, err2 := strconv.ParseFloat(f[15-3], 64)
	cpu, err3 := strconv.Atoi(f[39-3])
	if err := errors.Join(err1, err2, err3); err != nil {
		return taskTime{}, err
	}
	return taskTime{cpu: cpu, secs: (ut + st) / userHZ}, nil
}

// processSecs is the CPU time of process pid, all its threads, living and
// exited, together (root/PID/stat).
func processSecs(root string, pid int) (float64, error) {
	b, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	t, err := parseTaskStat(b)
	return t.secs, err
}

// tasks reads the threads of process pid (root/PID/task/*/stat), keyed by
// thread ID; a thread that exits while it is read is left out.
func tasks(root string, pid int, into map[int]taskTime) {
	dir := filepath.Join(root, strconv.Itoa(pid), "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "stat"))
		if err != nil {
			continue
		}
		if t, err := parseTaskStat(b); err == nil {
			into[tid] = t
		}
	}
}

// children lists the child processes of pid's threads
// (root/PID/task/TID/children, where the kernel has it).
func children(root string, pid int) []int {
	dir := filepath.Join(root, strconv.Itoa(pid), "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "children"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// readPressure is the "some" total of root/pressure/cpu, in seconds: the
// time at least one runnable task waited for a CPU. ok is false where the
// kernel has no PSI.
func readPressure(root string) (secs float64, ok bool) {
	b, err := os.ReadFile(filepath.Join(root, "pressure", "cpu"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "some ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, found := strings.CutPrefix(f, "total="); found {
				us, err := strconv.ParseFloat(v, 64)
				return us / 1e6, err == nil
			}
		}
	}
	return 0, false
}
