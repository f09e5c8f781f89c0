package llamabench

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestWriteLikeLlamaBench writes the records of rk3588.json in every format
// and compares with the fixtures, which were made by a separate
// implementation of llama-bench's printers.
func TestWriteLikeLlamaBench(t *testing.T) {
	recs, errs, _ := parseFile(t, "rk3588.json")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	sweep := readFile(t, "rk3588-sweep.md")
	firstTable := sweep[:strings.Index(sweep, "build: 0104b151 (7950)\n")+len("build: 0104b151 (7950)\n")]
	tests := []struct {
		format Format
		recs   []Record
		want   string
	}{
		{JSON, recs, readFile(t, "rk3588.json")},
		{JSONL, recs, readFile(t, "rk3588.jsonl")},
		{CSV, recs, readFile(t, "rk3588.csv")},
		{SQL, recs, readFile(t, "rk3588.sql")},
		{Markdown, recs[:2], firstTable},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := Write(&b, tt.format, tt.recs); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%v: got\n%s\nwant\n%s", tt.format, b.String(), tt.want)
		}
	}
}

// TestRewriteMarkdown reads each markdown fixture and writes it back: the
// same bytes come out, so nothing the table shows is lost.
func TestRewriteMarkdown(t *testing.T) {
	for _, file := range []string{"rk3588.md", "rk3588-sweep.md", "rk3588-vulkan.md"} {
		recs, errs, _ := parseFile(t, file)
		if len(errs) != 0 {
			t.Fatal(errs)
		}
		var b bytes.Buffer
		if err := Write(&b, Markdown, recs); err != nil {
			t.Fatal(err)
		}
		if want := readFile(t, file); b.String() != want {
			t.Errorf("%s: got\n%s\nwant\n%s", file, b.String(), want)
		}
	}
}

func TestJSONLSamplesQuirk(t *testing.T) {
	var b bytes.Buffer
	Write(&b, JSONL, builtinRecords())
	line, _, _ := strings.Cut(b.String(), "\n")
	if !strings.Contains(line, `, 19389250000 ],"samples_ts": [ 26.11, `) || strings.Contains(line, `], "samples_ts"`) {
		t.Errorf("jsonl line without llama-bench's samples_ts quirk:\n%s", line)
	}
	if !strings.HasPrefix(line, `{"build_commit": "b1s1m000", "build_number": 1, "cpu_info": `) || !strings.HasSuffix(line, " ]}") {
		t.Errorf("jsonl line:\n%s", line)
	}
}

// builtinRecords are records as blsim's own benchmark makes them: typed
// fields only.
func builtinRecords() []Record {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	base := Record{
		BuildCommit: "b1s1m000", BuildNumber: 1,
		CPUInfo: "Cortex-A76 x4 + Cortex-A55 x4", Backends: "CPU",
		ModelFilename: "Qwen3.5-35B-A3B-Q4_K_M.gguf", ModelType: "qwen35moe 35B.A3B Q4_K - Medium",
		ModelSizeBytes: 21163225088, ModelParams: 34660610048,
		NBatch: 2048, NUbatch: 512, NThreads: 4, CPUMask: "0xf0", CPUStrict: true, Poll: 50, NGPULayers: -1,
		NPrompt: 512, TestTime: at,
		AvgNS: 19497661204, StddevNS: 89254260, AvgTS: 26.26, StddevTS: 0.12,
		SamplesNS: []int64{19609345079, 19497334349, 19389250000}, SamplesTS: []float64{26.11, 26.26, 26.4063},
	}
	little := base
	little.NThreads, little.CPUMask, little.CPUStrict, little.Poll = 4, "0x0f", false, 0
	little.NDepth, little.AvgNS, little.StddevNS, little.AvgTS, little.StddevTS = 1024, 68266666666, 0, 7.5, 0.25
	little.SamplesNS, little.SamplesTS = []int64{68266666666}, []float64{7.5}
	gen := base
	gen.NPrompt, gen.NGen, gen.NThreads, gen.CPUMask = 0, 128, 8, "0xff"
	gen.AvgNS, gen.StddevNS, gen.AvgTS, gen.StddevTS = 22614840989, 0, 5.66, 0.04
	gen.SamplesNS, gen.SamplesTS = nil, nil
	gen.TestTime = at.Add(time.Minute)
	return []Record{base, little, gen}
}

// typed returns rec without Fields and Line.
func typed(rec Record) Record {
	rec.Fields, rec.Line = nil, 0
	return rec
}

func TestRoundTrip(t *testing.T) {
	in := builtinRecords()
	for _, format := range []Format{JSON, JSONL, CSV, Markdown, SQL} {
		var first bytes.Buffer
		if err := Write(&first, format, in); err != nil {
			t.Fatal(err)
		}
		recs, errs := Parse(bytes.NewReader(first.Bytes()), "first", Auto)
		if len(errs) != 0 || len(recs) != len(in) {
			t.Fatalf("%v: %d records, errors %v\n%s", format, len(recs), errs, first.String())
		}
		for i := range in {
			want := in[i]
			switch format {
			case CSV, SQL:
				want.SamplesNS, want.SamplesTS = nil, nil
			case Markdown:
				want = mdView(want)
				recs[i].ModelSizeBytes = roundTo(recs[i].ModelSizeBytes, 1<<30/100)
				recs[i].ModelParams = roundTo(recs[i].ModelParams, 1e9/100)
			}
			if got := typed(recs[i]); !reflect.DeepEqual(got, want) {
				t.Errorf("%v record %d:\n got %+v\nwant %+v", format, i, got, want)
			}
		}
		var second bytes.Buffer
		if err := Write(&second, format, recs); err != nil {
			t.Fatal(err)
		}
		if first.String() != second.String() {
			t.Errorf("%v: written again differently:\n%s\nthen\n%s", format, first.String(), second.String())
		}
	}
}

// mdView is what a markdown table keeps of rec.
func mdView(rec Record) Record {
	return Record{
		BuildCommit: rec.BuildCommit, BuildNumber: rec.BuildNumber,
		Backends: rec.Backends, ModelType: rec.ModelType,
		ModelSizeBytes: roundTo(rec.ModelSizeBytes, 1<<30/100),
		ModelParams:    roundTo(rec.ModelParams, 1e9/100),
		NBatch:         rec.NBatch, NUbatch: rec.NUbatch, NThreads: rec.NThreads,
		CPUMask: rec.CPUMask, CPUStrict: rec.CPUStrict, Poll: rec.Poll,
		NPrompt: rec.NPrompt, NGen: rec.NGen, NDepth: rec.NDepth,
		AvgTS:    math.Round(rec.AvgTS*100) / 100,
		StddevTS: math.Round(rec.StddevTS*100) / 100,
	}
}

func roundTo(v, unit int64) int64 {
	return int64(math.Round(float64(v)/float64(unit))) * unit
}

// TestWriteExtraFields checks that fields unknown to this package survive a
// json write and read.
func TestWriteExtraFields(t *testing.T) {
	recs, _, _ := parseFile(t, "drift.jsonl")
	for _, format := range []Format{JSON, JSONL, CSV, SQL} {
		var b bytes.Buffer
		if err := Write(&b, format, recs[:2]); err != nil {
			t.Fatal(err)
		}
		again, errs := Parse(&b, "again", format)
		if len(errs) != 0 || len(again) != 2 {
			t.Fatalf("%v: %d records, errors %v", format, len(again), errs)
		}
		for _, k := range []string{"use_mmap", "rpc", "cuda"} {
			if again[0].Fields[k] != recs[0].Fields[k] {
				t.Errorf("%v: %s = %q, want %q", format, k, again[0].Fields[k], recs[0].Fields[k])
			}
		}
		want := map[string]string{"numa": "isolate", "n_expert_used": "8", "repack": `{"q4_K": "8x8"}`}
		for k, v := range want {
			if again[1].Fields[k] != v {
				t.Errorf("%v: %s = %q, want %q", format, k, again[1].Fields[k], v)
			}
		}
	}
	var b bytes.Buffer
	Write(&b, JSON, recs[1:2])
	for _, s := range []string{`    "n_expert_used": 8,`, `    "numa": "isolate",`, `    "repack": {"q4_K": "8x8"},`, `    "type_k": "f16",`} {
		if !strings.Contains(b.String(), s+"\n") {
			t.Errorf("json lacks %s:\n%s", s, b.String())
		}
	}
}

func TestWriteEscapes(t *testing.T) {
	rec := builtinRecords()[0]
	rec.ModelFilename = "C:\\models\\\"odd\" name,\ttab.gguf"
	rec.CPUInfo = "it's"
	for _, format := range []Format{JSON, JSONL, CSV, SQL} {
		var b bytes.Buffer
		if err := Write(&b, format, []Record{rec}); err != nil {
			t.Fatal(err)
		}
		recs, errs := Parse(&b, "esc", format)
		if len(errs) != 0 || len(recs) != 1 || recs[0].ModelFilename != rec.ModelFilename || recs[0].CPUInfo != rec.CPUInfo {
			t.Errorf("%v: %v %v", format, recs, errs)
		}
	}
	if err := Write(&bytes.Buffer{}, Auto, nil); err == nil {
		t.Error("Write with Auto: no error")
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
