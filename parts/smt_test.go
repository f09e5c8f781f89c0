package parts

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// smtCore is a test core with two ways: cortex-a76's file with SMT added
// (no such core exists; the values are the test's).
func smtCore(t *testing.T, yield string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, path)
		fsys[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	a76 := string(fsys["cores/cortex-a76.yaml"].Data)
	c := strings.Replace(a76, "name: cortex-a76", "name: test-smt", 1)
	c = strings.Replace(c, "aliases: [a76]", "aliases: [tsmt]", 1)
	c = strings.Replace(c, "smt_ways: 1", "smt_ways: 2\n"+yield, 1)
	fsys["cores/test-smt.yaml"] = &fstest.MapFile{Data: []byte(c)}
	return fsys
}

// TestSMTYieldPart: a core with SMT gives what its second thread adds,
// every op kind with a source; one without SMT gives none.
func TestSMTYieldPart(t *testing.T) {
	good := "# The test's values.\nsmt_yield: {matmul: 0.05, attention: 0.05, scalar: 0.25, dram: 0}"
	l, err := load(smtCore(t, good))
	if err != nil {
		t.Fatal(err)
	}
	c := l.cores["test-smt"]
	if c.SMTYield["scalar"] != 0.25 || c.Note("smt_yield.dram") != "The test's values." {
		t.Errorf("yield %v, dram's note %q", c.SMTYield, c.Note("smt_yield.dram"))
	}
	for _, tc := range []struct{ yield, want string }{
		{"", "smt_yield: a core with 2 ways needs"},
		{"# x\nsmt_yield: {matmul: 0.05, attention: 0.05, scalar: 0.25}", "smt_yield.dram: missing"},
		{"# x\nsmt_yield: {matmul: 2, attention: 0.05, scalar: 0.25, dram: 0}", "smt_yield.matmul: 2 is outside [-0.5, 1]"},
		{"# x\nsmt_yield: {matmul: 0, attention: 0, scalar: 0, dram: 0, io: 1}", "smt_yield: unknown key"},
	} {
		if _, err := load(smtCore(t, tc.yield)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yield, err, tc.want)
		}
	}
	one := smtCore(t, good)
	one["cores/test-smt.yaml"].Data = []byte(strings.Replace(string(one["cores/test-smt.yaml"].Data), "smt_ways: 2", "smt_ways: 1", 1))
	if _, err := load(one); err == nil || !strings.Contains(err.Error(), "smt_yield given, but smt_ways is 1") {
		t.Errorf("yield without SMT: %v", err)
	}
}
