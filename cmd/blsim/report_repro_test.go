package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReportReproducible runs each report twice, into two folders of
// different names, and compares every file in them byte for byte
// (report.md and every figure, whatever its format). Neither report may
// name its folder, and one not dated by --date or SOURCE_DATE_EPOCH may not
// carry today's date: a run that read the clock would pass the byte
// comparison on the same day, so the date is looked for by name.
func TestReportReproducible(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name string
		args []string
		env  string // SOURCE_DATE_EPOCH ("": unset)
		date string // the date the report ends with ("": none)
	}{
		{"seed, undated", nil, "", ""},
		{"npu, --date", []string{"--soc", "rk3588-npu", "--engines", "big,npu", "--date", "2026-12-03"}, "", "2026-12-03"},
		{"ddr5, SOURCE_DATE_EPOCH", []string{"--soc", "ddr5", "--split", "expert"}, "1764763200", "2025-12-03"},
		{"--date over SOURCE_DATE_EPOCH", []string{"--soc", "ddr5", "--date", "2024-02-29"}, "1764763200", "2024-02-29"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SOURCE_DATE_EPOCH", tc.env)
			before := time.Now()
			dirs := []string{filepath.Join(t.TempDir(), "first-rep-q7"), filepath.Join(t.TempDir(), "second-rep-z3")}
			for _, dir := range dirs {
				if _, err := runReport(append(append([]string{}, tc.args...), "-o", dir)...); err != nil {
					t.Fatal(err)
				}
			}
			after := time.Now()
			a, b := readFolder(t, dirs[0]), readFolder(t, dirs[1])
			if len(a) != len(b) || len(a) < 2 {
				t.Fatalf("%d and %d files", len(a), len(b))
			}
			for name, fa := range a {
				fb, ok := b[name]
				if !ok {
					t.Errorf("%s in one report only", name)
					continue
				}
				if !bytes.Equal(fa, fb) {
					t.Errorf("%s differs between the two runs: %s", name, firstDiff(fa, fb))
				}
				for _, dir := range dirs {
					for _, leak := range []string{dir, filepath.Base(dir), filepath.Dir(dir)} {
						if bytes.Contains(fa, []byte(leak)) || bytes.Contains(fb, []byte(leak)) {
							t.Errorf("%s names the output folder (%s)", name, leak)
						}
					}
				}
			}
			md := string(a["report.md"])
			if !strings.Contains(md, " --output DIR") {
				t.Errorf("report.md's command line does not write the folder as DIR")
			}
			switch {
			case tc.date != "":
				if !strings.Contains(md, ", "+tc.date+".") {
					t.Errorf("report.md is not dated %s", tc.date)
				}
			default:
				for _, now := range []time.Time{before, after, before.UTC(), after.UTC()} {
					if d := now.Format(time.DateOnly); strings.Contains(md, d) {
						t.Errorf("report.md carries today's date %s, asked for none", d)
					}
				}
			}
		})
	}
}

// readFolder reads every file in dir by name; a folder in it is an error.
func readFolder(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			t.Errorf("%s: not a plain file", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// firstDiff says where two files first differ, with the text around it.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	around := func(x []byte) []byte { return x[max(0, i-40):min(len(x), i+40)] }
	return fmt.Sprintf("byte %d: ", i) + strings.ToValidUTF8(string(around(a)), "?") + " | " + strings.ToValidUTF8(string(around(b)), "?")
}

// TestReportDate: --date is checked and wins; SOURCE_DATE_EPOCH gives its
// day in UTC; an empty one is unset; a malformed one is a one-line error
// naming it; with neither the report is undated.
func TestReportDate(t *testing.T) {
	for _, tc := range []struct {
		flag, env string
		set       bool
		want, err string
	}{
		{"", "", false, "", ""},
		{"", "", true, "", ""},
		{"2026-12-03", "", false, "2026-12-03", ""},
		{"2026-12-03", "0", true, "2026-12-03", ""},
		{"", "0", true, "1970-01-01", ""},
		{"", "1764719999", true, "2025-12-02", ""}, // 23:59:59 UTC
		{"", "1764720000", true, "2025-12-03", ""}, // midnight UTC
		{"", "253402300799", true, "9999-12-31", ""},
		{"03/12/2026", "", false, "", `--date: "03/12/2026" is not a day YYYY-MM-DD`},
		{"2026-02-30", "", false, "", `--date: "2026-02-30"`},
		{"", "yesterday", true, "", `SOURCE_DATE_EPOCH: "yesterday" is not a count of seconds`},
		{"", "-1", true, "", `SOURCE_DATE_EPOCH: "-1"`},
		{"", "1.5", true, "", `SOURCE_DATE_EPOCH: "1.5"`},
		{"", "253402300800", true, "", `SOURCE_DATE_EPOCH: "253402300800"`},
	} {
		env := func(k string) (string, bool) {
			if k != "SOURCE_DATE_EPOCH" {
				t.Errorf("looked up %s", k)
			}
			return tc.env, tc.set
		}
		got, err := reportDate(tc.flag, env)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("--date %q, SOURCE_DATE_EPOCH %q: error %v, want one line containing %q", tc.flag, tc.env, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("--date %q, SOURCE_DATE_EPOCH %q: %q, %v, want %q", tc.flag, tc.env, got, err, tc.want)
		}
	}
}
