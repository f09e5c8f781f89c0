package llamabench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blsim/blsim/measure"
)

// kind is how llama-bench types a field (test::get_field_type): it decides
// whether json quotes the value and which SQL column type it gets.
type kind int

const (
	kindString kind = iota
	kindBool
	kindInt
	kindFloat
)

// field describes one of llama-bench's fields. get and set are nil for the
// fields that Record does not type; their values live in Record.Fields.
type field struct {
	name string
	kind kind
	def  string // written when a record has no value for an untyped field
	get  func(r *Record) string
	set  func(r *Record, v string) error
}

// Keys that are not llama-bench fields in the csv sense but appear in records.
const (
	keySamplesNS = "samples_ns"
	keySamplesTS = "samples_ts"
)

// testTimeLayout is how llama-bench prints test_time: strftime "%FT%TZ".
const testTimeLayout = "2006-01-02T15:04:05Z"

// schema lists llama-bench's fields in the order its printers write them
// (test::get_fields in tools/llama-bench/llama-bench.cpp).
var schema = []field{
	strField("build_commit", func(r *Record) *string { return &r.BuildCommit }),
	intField("build_number", func(r *Record) *int { return &r.BuildNumber }),
	strField("cpu_info", func(r *Record) *string { return &r.CPUInfo }),
	strField("gpu_info", func(r *Record) *string { return &r.GPUInfo }),
	strField("backends", func(r *Record) *string { return &r.Backends }),
	strField("model_filename", func(r *Record) *string { return &r.ModelFilename }),
	strField("model_type", func(r *Record) *string { return &r.ModelType }),
	int64Field("model_size", func(r *Record) *int64 { return &r.ModelSizeBytes }),
	int64Field("model_n_params", func(r *Record) *int64 { return &r.ModelParams }),
	intField("n_batch", func(r *Record) *int { return &r.NBatch }),
	intField("n_ubatch", func(r *Record) *int { return &r.NUbatch }),
	intField("n_threads", func(r *Record) *int { return &r.NThreads }),
	strField("cpu_mask", func(r *Record) *string { return &r.CPUMask }),
	boolField("cpu_strict", func(r *Record) *bool { return &r.CPUStrict }),
	intField("poll", func(r *Record) *int { return &r.Poll }),
	{name: "type_k", kind: kindString, def: "f16"},
	{name: "type_v", kind: kindString, def: "f16"},
	intField("n_gpu_layers", func(r *Record) *int { return &r.NGPULayers }),
	intField("n_cpu_moe", func(r *Record) *int { return &r.NCPUMoE }),
	{name: "split_mode", kind: kindString, def: "layer"},
	{name: "main_gpu", kind: kindInt, def: "0"},
	{name: "no_kv_offload", kind: kindBool, def: "0"},
	{name: "flash_attn", kind: kindInt, def: "-1"},
	{name: "devices", kind: kindString, def: "auto"},
	{name: "tensor_split", kind: kindString, def: "0.00"},
	{name: "tensor_buft_overrides", kind: kindString, def: "none"},
	{name: "load_mode", kind: kindString, def: "mmap"},
	{name: "embeddings", kind: kindBool, def: "0"},
	{name: "no_op_offload", kind: kindInt, def: "0"},
	{name: "no_host", kind: kindBool, def: "0"},
	{name: "fit_target", kind: kindInt, def: "0"},
	{name: "fit_min_ctx", kind: kindInt, def: "0"},
	intField("n_prompt", func(r *Record) *int { return &r.NPrompt }),
	intField("n_gen", func(r *Record) *int { return &r.NGen }),
	intField("n_depth", func(r *Record) *int { return &r.NDepth }),
	{
		name: "test_time", kind: kindString,
		get: func(r *Record) string {
			if r.TestTime.IsZero() {
				return ""
			}
			return r.TestTime.UTC().Format(testTimeLayout)
		},
		set: func(r *Record, v string) error {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return fmt.Errorf("invalid time %s", quote(v))
			}
			r.TestTime = t.UTC()
			return nil
		},
	},
	int64Field("avg_ns", func(r *Record) *int64 { return &r.AvgNS }),
	int64Field("stddev_ns", func(r *Record) *int64 { return &r.StddevNS }),
	floatField("avg_ts", func(r *Record) *float64 { return &r.AvgTS }),
	floatField("stddev_ts", func(r *Record) *float64 { return &r.StddevTS }),
}

// schemaIndex maps a field name to its place in schema.
var schemaIndex = func() map[string]int {
	m := make(map[string]int, len(schema))
	for i, f := range schema {
		m[f.name] = i
	}
	return m
}()

// FieldNames returns llama-bench's field names in the order its csv, json,
// jsonl and sql printers write them. The json printers add samples_ns and
// samples_ts after them.
func FieldNames() []string {
	names := make([]string, len(schema))
	for i, f := range schema {
		names[i] = f.name
	}
	return names
}

func strField(name string, p func(*Record) *string) field {
	return field{name: name, kind: kindString,
		get: func(r *Record) string { return *p(r) },
		set: func(r *Record, v string) error { *p(r) = v; return nil },
	}
}

func intField(name string, p func(*Record) *int) field {
	return field{name: name, kind: kindInt,
		get: func(r *Record) string { return strconv.Itoa(*p(r)) },
		set: func(r *Record, v string) error {
			n, err := parseInt(v)
			if err == nil && (n < math.MinInt || n > math.MaxInt) {
				err = fmt.Errorf("integer %s out of range", quote(v))
			}
			*p(r) = int(n)
			return err
		},
	}
}

func int64Field(name string, p func(*Record) *int64) field {
	return field{name: name, kind: kindInt,
		get: func(r *Record) string { return strconv.FormatInt(*p(r), 10) },
		set: func(r *Record, v string) (err error) { *p(r), err = parseInt(v); return err },
	}
}

func boolField(name string, p func(*Record) *bool) field {
	return field{name: name, kind: kindBool,
		get: func(r *Record) string { return formatBool(*p(r)) },
		set: func(r *Record, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("invalid boolean %s", quote(v))
			}
			*p(r) = b
			return nil
		},
	}
}

func floatField(name string, p func(*Record) *float64) field {
	return field{name: name, kind: kindFloat,
		get: func(r *Record) string { return formatF(*p(r)) },
		set: func(r *Record, v string) (err error) { *p(r), err = parseFloat(v); return err },
	}
}

// formatBool is C++'s std::to_string(bool): "0" or "1".
func formatBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// formatF is C++'s std::to_string(double), which is printf's "%f".
func formatF(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// formatG is how a C++ ostream writes a double by default, printf's "%g".
func formatG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// parseInt reads an integer, also when written as an integral float ("512.0",
// "5.12e2"); anything else is an error.
func parseInt(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, nil
	}
	f, ferr := strconv.ParseFloat(s, 64)
	if ferr != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, fmt.Errorf("invalid integer %s", quote(s))
	}
	return int64(f), nil
}

// parseFloat reads a finite float.
func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid number %s", quote(s))
	}
	return f, nil
}

// parseArray reads a JSON array whose elements are numbers or strings
// holding numbers, calling elem on each element's text.
func parseArray(s string, elem func(string) error) error {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return fmt.Errorf("invalid array %s", quote(s))
	}
	for _, e := range raw {
		v := string(e)
		if len(e) > 0 && e[0] == '"' {
			if err := json.Unmarshal(e, &v); err != nil {
				return err
			}
		}
		if err := elem(strings.TrimSpace(v)); err != nil {
			return err
		}
	}
	return nil
}

// buildRecord types the fields of one record. fix, if not nil, runs after the
// fields are typed and before the throughput is checked; markdown uses it for
// the columns that do not map to one field.
func buildRecord(fields map[string]string, line int, fix func(*Record) error) (Record, error) {
	rec := Record{Fields: fields, Line: line}
	for _, f := range schema {
		v := strings.TrimSpace(fields[f.name])
		if f.set == nil || v == "" {
			continue
		}
		if err := f.set(&rec, v); err != nil {
			return Record{}, fmt.Errorf("field %s: %v", f.name, err)
		}
	}
	if v := strings.TrimSpace(fields[keySamplesNS]); v != "" {
		err := parseArray(v, func(s string) error {
			n, err := parseInt(s)
			rec.SamplesNS = append(rec.SamplesNS, n)
			return err
		})
		if err != nil {
			return Record{}, fmt.Errorf("field %s: %v", keySamplesNS, err)
		}
	}
	if v := strings.TrimSpace(fields[keySamplesTS]); v != "" {
		err := parseArray(v, func(s string) error {
			f, err := parseFloat(s)
			rec.SamplesTS = append(rec.SamplesTS, f)
			return err
		})
		if err != nil {
			return Record{}, fmt.Errorf("field %s: %v", keySamplesTS, err)
		}
	}
	if fix != nil {
		if err := fix(&rec); err != nil {
			return Record{}, err
		}
	}
	if err := checkThroughput(&rec); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// errNoThroughput is the message for a record that has nothing to calibrate
// against.
var errNoThroughput = errors.New("no usable throughput: avg_ts missing or not positive, and no samples")

// checkThroughput makes sure rec.AvgTS is positive, computing it from the
// samples when avg_ts is missing or not positive, as llama-bench computes it:
// tokens per second from each sample, then their mean and sample standard
// deviation.
func checkThroughput(rec *Record) error {
	if rec.AvgTS > 0 {
		return nil
	}
	ts := rec.SamplesTS
	if len(ts) == 0 && rec.NPrompt+rec.NGen > 0 {
		for _, ns := range rec.SamplesNS {
			if ns > 0 {
				ts = append(ts, 1e9*float64(rec.NPrompt+rec.NGen)/float64(ns))
			}
		}
	}
	mean, sd := meanStddev(ts)
	if !(mean > 0) || math.IsInf(mean, 0) {
		return errNoThroughput
	}
	rec.AvgTS, rec.StddevTS = mean, sd
	return nil
}

// meanStddev returns the mean and the sample standard deviation of xs.
func meanStddev(xs []float64) (mean, sd float64) { return measure.MeanSD(xs) }

// value returns the text llama-bench would print for f in rec: the typed
// field if there is one, else Fields (booleans as "0" or "1"), else the
// default.
func value(rec *Record, f *field) string {
	if f.get != nil {
		return f.get(rec)
	}
	v, ok := rec.Fields[f.name]
	if !ok {
		return f.def
	}
	if f.kind == kindBool {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return formatBool(b)
		}
	}
	return v
}

// values returns value for every field of schema, in order.
func values(rec *Record) []string {
	vs := make([]string, len(schema))
	for i := range schema {
		vs[i] = value(rec, &schema[i])
	}
	return vs
}

// notExtra lists the keys of Record.Fields that writers never treat as extra
// fields: the samples, which json and jsonl write from the typed fields, and
// the markdown columns that stand for other fields.
var notExtra = map[string]bool{
	keySamplesNS: true, keySamplesTS: true,
	"size": true, "params": true, "test": true, "t/s": true,
}

// extraKeys returns, sorted, the keys of the records' Fields that are not
// llama-bench fields: fields of a newer llama-bench, or of another tool.
func extraKeys(recs ...Record) []string {
	seen := map[string]bool{}
	var keys []string
	for i := range recs {
		for k := range recs[i].Fields {
			if _, known := schemaIndex[k]; known || notExtra[k] || seen[k] || k == "" {
				continue
			}
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
