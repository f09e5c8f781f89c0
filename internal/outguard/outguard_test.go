package outguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.StringP("output", "o", "", "")
	fs.String("measurements", "runs.jsonl", "")
	fs.String("workload", "", "")
	fs.String("bench", "", "")
	fs.StringArray("env", nil, "")
	fs.Int("rounds", 0, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

// Check names the flag that gave the input an output would overwrite,
// whatever flag it is, and refuses two outputs that are one file.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("w.yaml", []byte("x"), 0o644)
	os.WriteFile("model-00001-of-00002.gguf", []byte("x"), 0o644)
	os.WriteFile("model-00002-of-00002.gguf", []byte("y"), 0o644)
	for _, tc := range []struct {
		args    []string
		outputs []string
		want    string
	}{
		{[]string{"--measurements", "w.yaml", "--workload", "w.yaml"}, []string{"measurements"}, "--measurements w.yaml: is also an input (--workload w.yaml)"},
		{[]string{"--measurements", "model-00002-of-00002.gguf", "--workload", "model-00001-of-00002.gguf"}, []string{"measurements"}, "a shard of the model --workload model-00001-of-00002.gguf names"},
		{[]string{"--measurements", "w.yaml", "--bench", "bench -m w.yaml"}, []string{"measurements"}, "(--bench bench -m w.yaml)"},
		{[]string{"--measurements", "w.yaml", "--env", "MODEL=w.yaml"}, []string{"measurements"}, "(--env MODEL=w.yaml)"},
		{[]string{"-o", "p.yaml", "--measurements", "p.yaml"}, []string{"measurements", "output"}, "--measurements p.yaml: is also -o; name two files"},
		{[]string{"-o", "p.yaml", "--workload", "w.yaml"}, []string{"measurements", "output"}, ""},
	} {
		err := Check(flags(t, tc.args...), nil, tc.outputs...)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	// An argument is an input too.
	if err := Check(flags(t, "-o", "w.yaml"), []string{"w.yaml"}, "output"); err == nil || !strings.Contains(err.Error(), "argument 1, w.yaml") {
		t.Errorf("an argument: %v", err)
	}
	// A folder output may hold no input.
	os.Mkdir("rep", 0o755)
	os.WriteFile(filepath.Join("rep", "runs.jsonl"), nil, 0o644)
	if err := CheckDir(flags(t, "-o", "rep", "--measurements", filepath.Join("rep", "runs.jsonl")), nil, "output"); err == nil || !strings.Contains(err.Error(), "holds an input") {
		t.Errorf("a folder holding an input: %v", err)
	}
}
