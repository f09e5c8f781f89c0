// Package scripts holds tests of the shell scripts beside it.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeGo is a "go" that prints out and exits with rc, and, when
// crasher is set, writes a failing input into the target's corpus as go
// test -fuzz does.
const fakeGo = `#!/bin/sh
if [ -n "$CRASHER" ]; then mkdir -p calibrate/runner/testdata/fuzz/FuzzParseMapping; : > "calibrate/runner/testdata/fuzz/FuzzParseMapping/$CRASHER"; fi
printf '%s' "$OUT"
exit $RC
`

// TestFuzzReadersDeadlineRace: fuzz-readers.sh reports a target that
// failed only with the fuzzing coordinator's deadline race (golang/go#75804:
// "context deadline exceeded" at the end of -fuzztime, no input written)
// as ok, and any other failure as FAIL with its log kept.
func TestFuzzReadersDeadlineRace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the script runs GNU time")
	}
	for _, tool := range []string{"bash", "/usr/bin/time"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s: %v", tool, err)
		}
	}
	script, err := filepath.Abs("fuzz-readers.sh")
	if err != nil {
		t.Fatal(err)
	}
	const elapsed = "fuzz: elapsed: 2m0s, execs: 923488 (9529/sec), new interesting: 60 (total: 1054)\n"
	const race = elapsed + "--- FAIL: FuzzParseMapping (120.24s)\n    context deadline exceeded\nFAIL\nexit status 1\nFAIL\tgithub.com/blsim/blsim/calibrate/runner\t120.297s\n"
	for _, tc := range []struct {
		name, out, crasher, rc string
		want                   string
		wantRC                 int
	}{
		{"pass", elapsed + "PASS\nok  \tgithub.com/blsim/blsim/calibrate/runner\t120.3s\n", "", "0", " ok ", 0},
		{"deadline race", race, "", "1", "ok (deadline race, golang/go#75804)", 0},
		{"deadline with an input written", race, "0123abcd", "1", "FAIL", 1},
		{"a real failure", elapsed + "--- FAIL: FuzzParseMapping (3.1s)\n    --- FAIL: FuzzParseMapping (0.00s)\n        fuzz_test.go:62: error \"x\": want one line naming the file\n    Failing input written to testdata/fuzz/FuzzParseMapping/0123abcd\nFAIL\n", "0123abcd", "1", "FAIL", 1},
		{"a worker killed", elapsed + "--- FAIL: FuzzParseMapping (60.1s)\n    fuzzing process terminated by unexpected signal; no crash will be recorded: signal: killed\nFAIL\n", "", "1", "FAIL", 1},
		{"deadline and another error", elapsed + "--- FAIL: FuzzParseMapping (120.2s)\n    context deadline exceeded\n    communicating with fuzzing process: EOF\nFAIL\n", "", "1", "FAIL", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			bin := filepath.Join(repo, "bin")
			if err := os.MkdirAll(filepath.Join(repo, "scripts"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "scripts", "fuzz-readers.sh"), src, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
				t.Fatal(err)
			}
			logs := filepath.Join(repo, "logs")
			cmd := exec.Command("bash", filepath.Join(repo, "scripts", "fuzz-readers.sh"))
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"ONLY=FuzzParseMapping", "FUZZTIME=2m", "LOGDIR="+logs, "OUT="+tc.out, "RC="+tc.rc, "CRASHER="+tc.crasher)
			out, err := cmd.CombinedOutput()
			rc := 0
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			line, _, _ := strings.Cut(string(out), "\n")
			if rc != tc.wantRC || !strings.Contains(line, tc.want) {
				t.Errorf("rc %d, first line %q; want rc %d and %q\n%s", rc, line, tc.wantRC, tc.want, out)
			}
			_, statErr := os.Stat(filepath.Join(logs, "calibrate_runner-FuzzParseMapping.log"))
			if kept := statErr == nil; kept != (tc.wantRC != 0) {
				t.Errorf("log kept %v, want %v\n%s", kept, tc.wantRC != 0, out)
			}
		})
	}
}
