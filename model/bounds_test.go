package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/internal/readfile"
)

// aliasBomb is a billion-laughs document of depth levels: each level a
// list of ten aliases of the one before, 10^levels nodes expanded.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("schema: blsim/soc/v1\nname: &a0 x\ndescription: [")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "&a%d [", i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("], ")
	}
	b.WriteString("x]\n")
	return b.String()
}

// Issue 31, case 5: YAML well under the size limit asked for seconds and
// gigabytes; each is refused in one line, before it is decoded: an alias
// bomb (41 KB took 12 s), a mapping of 60,000 keys (9.2 s), a file past
// readfile.YAMLLimit (a 64 MiB flat list took 40 s and 6.4 GB).
func TestYAMLBounds(t *testing.T) {
	_, err := ParseSoC([]byte(aliasBomb(9)), "bomb.yaml")
	var fe *FieldError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "bomb.yaml:") || !strings.Contains(err.Error(), "expands to more than 100000 nodes") {
		t.Errorf("alias bomb: %v", err)
	}
	// A whole workload, so that a reader without the bound decodes the
	// mapping (the code before the fix took 12.7 s on 60,000 keys).
	wl, err := os.ReadFile(filepath.Join("testdata", "good", "wl-tiny.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	head, tail, ok := strings.Cut(string(wl), "run:\n")
	if !ok {
		t.Fatal("wl-tiny.yaml: no run:")
	}
	var keys strings.Builder
	keys.WriteString(head + "  types:\n")
	line := strings.Count(head, "\n") + 2 // the mapping's line is its first key's
	for i := range 60000 {
		fmt.Fprintf(&keys, "    k%d: q4_k\n", i)
	}
	keys.WriteString("run:\n" + tail)
	if _, err := ParseWorkload([]byte(keys.String()), "keys.yaml"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("keys.yaml:%d: a mapping of 60000 keys, over the limit of 1000", line)) {
		t.Errorf("60,000 keys: %v", err)
	}
	// 4 MiB: past readfile.YAMLLimit, and well under the 64 MiB limit
	// the readers had before, which decoded it (a 64 MiB list took 40 s,
	// this one 1.7 s).
	const listBytes = 4 << 20
	p := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(p, []byte(strings.Repeat("- 1\n", listBytes/4)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSoCFile(p); !errors.Is(err, readfile.ErrTooLarge) {
		t.Errorf("a flat list past the limit: %v", err)
	}
}
