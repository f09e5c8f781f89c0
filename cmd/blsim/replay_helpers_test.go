package main

// Helpers of the replays of issue 31 (replay_*_test.go): each case of the
// hostile probe, run from a scratch folder against the command line.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// put writes content to dir/name and returns the path.
func put(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// same fails unless path still holds want.
func same(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s was changed (now %d bytes, %v)", path, len(b), err)
	}
}

// oneLine fails unless the command exited 1 with one line on stderr that
// holds every one of wants.
func oneLine(t *testing.T, code int, stderr string, wants ...string) {
	t.Helper()
	if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q: want exit 1 and one line", code, stderr)
	}
	for _, w := range wants {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
}

// replayBench writes a stand-in for llama-bench into dir that appends a
// line to dir/calls each time it runs and prints record (one jsonl line
// per line of it; default: one pp64 record), and returns its path.
func replayBench(t *testing.T, dir, extra string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in benchmark is a shell script")
	}
	script := `#!/bin/sh
echo run >> "$(dirname "$0")/calls"
` + extra + `
printf '{"build_commit":"0104b151","n_threads":1,"poll":50,"n_prompt":64,"n_gen":0,"avg_ts":20.5,"stddev_ts":0.1,"samples_ts":[20.4,20.6]}\n'
`
	p := filepath.Join(dir, "fakebench")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// calls is how many times the stand-in benchmark in dir ran.
func calls(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "calls"))
	return strings.Count(string(b), "\n")
}

// tinyWorkload puts the tiny MoE workload in dir.
func tinyWorkload(t *testing.T, dir string) (path, content string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tiny-moe.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return put(t, dir, "w.yaml", string(b)), string(b)
}

// seedRecord is a good record of the seed's kind (rk3588, the seed's
// workload, native on the big cluster); edit changes it before it is
// written.
func seedRecord(t *testing.T, id string, edit func(*measure.Measurement)) string {
	t.Helper()
	m := measure.Measurement{Schema: measure.Schema, ID: id, Kind: measure.Reported, SoC: "rk3588", Workload: "qwen3.5-35b-a3b",
		Unit: "t/s", Samples: []float64{26.2, 26.3}, Median: 26.25, Status: measure.StatusOK,
		Plan: &model.Plan{Mode: model.Native, Engines: []string{"big"}, Threads: []int{4}, Poll: 50}}
	if edit != nil {
		edit(&m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// goodRecords are n good seed records.
func goodRecords(t *testing.T, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(seedRecord(t, fmt.Sprintf("good-%d", i), nil))
	}
	return b.String()
}

// ggufKV is one metadata key of a hand-made GGUF header.
type ggufKV struct {
	key string
	val any // uint16, uint32, float32, string
}

// ggufHeader is a GGUF v3 header of kvs and no tensors.
func ggufHeader(kvs ...ggufKV) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { le(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	le(uint32(3))
	le(uint64(0))
	le(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.key)
		switch v := kv.val.(type) {
		case uint16:
			le(uint32(2))
			le(v)
		case uint32:
			le(uint32(4))
			le(v)
		case float32:
			le(uint32(6))
			le(v)
		case string:
			le(uint32(8))
			str(v)
		}
	}
	return b.Bytes()
}
