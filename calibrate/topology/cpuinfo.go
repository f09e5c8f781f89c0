package topology

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// cpuinfoRecord holds the "key : value" lines of one processor block of
// /proc/cpuinfo.
type cpuinfoRecord map[string]string

// readCPUInfo parses proc/cpuinfo into records keyed by the "processor"
// number. A missing file gives an empty map. Blocks without a processor
// line (the trailing "Hardware" block of 32-bit ARM) are ignored.
func readCPUInfo(fsys fs.FS) (map[int]cpuinfoRecord, error) {
	text, ok, err := readText(fsys, cpuinfo)
	if err != nil || !ok {
		return map[int]cpuinfoRecord{}, err
	}
	out := map[int]cpuinfoRecord{}
	rec := cpuinfoRecord{}
	flush := func(line int) error {
		defer func() { rec = cpuinfoRecord{} }()
		p, ok := rec["processor"]
		if !ok {
			return nil
		}
		id, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("%s:%d: processor %q is not an integer", cpuinfo, line, p)
		}
		out[id] = rec
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		key, value, found := strings.Cut(sc.Text(), ":")
		key = strings.TrimSpace(key)
		if key == "" && !found {
			if err := flush(line); err != nil {
				return nil, err
			}
			continue
		}
		if found {
			rec[key] = strings.TrimSpace(value)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", cpuinfo, err)
	}
	if err := flush(line); err != nil {
		return nil, err
	}
	return out, nil
}

// midr rebuilds the MIDR fields arm64 prints in /proc/cpuinfo ("CPU
// implementer : 0x41", "CPU part : 0xd0b"). ok is false when the record has
// no such lines, as on x86.
func (r cpuinfoRecord) midr() (m MIDR, ok bool, err error) {
	impl, okImpl := r["CPU implementer"]
	part, okPart := r["CPU part"]
	if !okImpl || !okPart {
		return MIDR{}, false, nil
	}
	i, err := strconv.ParseUint(impl, 0, 8)
	if err != nil {
		return MIDR{}, false, fmt.Errorf("%s: CPU implementer %q is not a byte", cpuinfo, impl)
	}
	p, err := strconv.ParseUint(part, 0, 12)
	if err != nil {
		return MIDR{}, false, fmt.Errorf("%s: CPU part %q is not a 12-bit number", cpuinfo, part)
	}
	return MIDR{Implementer: uint32(i), Part: uint32(p)}, true, nil
}

// CPUModel is the CPU's name in proc/cpuinfo under root ("/" on a live
// machine): the first "model name" (x86) or "Hardware" (many arm64 boards)
// line's value, or "" when there is none or the file cannot be read.
func CPUModel(root string) string {
	text, ok, err := readText(os.DirFS(root), cpuinfo)
	if err != nil || !ok {
		return ""
	}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (strings.TrimSpace(k) == "model name" || strings.TrimSpace(k) == "Hardware") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
