package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CheckOutput makes sure, before any work, that path can take an output
// file: its folder exists and takes a new file (a file is made there and
// removed), path is not a device, a folder or a link, and it is none of the
// inputs (SameAsAny: by name, or by device and inode, each input also read
// as the words and NAME=VALUE parts it holds), for a profile written over
// the measurements it was fitted from would lose them.
func CheckOutput(path string, inputs ...string) error {
	if in := SameAsAny(path, inputs); in != "" {
		return fmt.Errorf("is also an input (%s); name another file", in)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link; name the file itself")
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%v); blsim writes only regular files", st.Mode().Type())
	}
	return Writable(dir)
}

// probePrefix starts the name of Writable's probe file; this process's
// id follows it.
const probePrefix = ".blsim-probe-"

// Writable checks that dir takes a new file, by making one and removing
// it: an output that cannot be written is found before the work, not
// after. The probe's name holds this process's id, and probes a killed
// run left in dir (their process is gone) are removed first, so kills
// leave nothing behind for long.
func Writable(dir string) error {
	removeStaleProbes(dir)
	f, err := os.CreateTemp(dir, probePrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// removeStaleProbes removes the probe files in dir whose process (the pid
// in their name) no longer runs.
func removeStaleProbes(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && ownerGone(e.Name(), probePrefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// SameAsAny returns the first of the inputs that names the file path
// names, or "". Each input counts as itself, as each of its
// whitespace-separated words, and as the parts of a word split at '=' and
// ',' (a command line "llama-bench -m model.gguf", an argument
// "-m=model.gguf", a list "a.yaml,b.yaml"). Two names are one file when
// both exist and are the same file (device and inode: a hard link, a
// symlink, another spelling); a path that does not exist yet holds nothing
// to lose.
func SameAsAny(path string, inputs []string) string {
	if path == "" {
		return ""
	}
	st, err := os.Stat(path)
	if err != nil {
		return "" // nothing there to lose
	}
	for _, in := range inputs {
		for _, cand := range Words(in) {
			if ist, err := os.Stat(cand); err == nil && os.SameFile(st, ist) {
				return in
			}
		}
	}
	return ""
}

// Words is s, its whitespace-separated words and their parts split at
// '=' and ',', each once, empty ones left out.
func Words(s string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	add(s)
	for _, w := range strings.Fields(s) {
		add(w)
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '=' || r == ',' }) {
			add(p)
		}
	}
	return out
}
