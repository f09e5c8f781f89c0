package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// viaJSON is what encoding/json makes of a line, as parse read it before
// the scanner.
func viaJSON(line []byte) (Measurement, error) {
	var m Measurement
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&m)
	if err == nil && dec.InputOffset() != int64(len(line)) {
		err = fmt.Errorf("text after the record")
	}
	return m, err
}

// sameAsJSON fails t unless the scanner's verdict on line agrees with
// encoding/json: decoded to the same record, or invalid where it fails.
func sameAsJSON(t *testing.T, line []byte) verdict {
	t.Helper()
	var s scanner
	var got Measurement
	v := s.fastDecode(line, &got)
	want, err := viaJSON(line)
	switch v {
	case decoded:
		if err != nil {
			t.Fatalf("%q: decoded, but encoding/json says %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	case invalid:
		if err == nil {
			t.Fatalf("%q: invalid, but encoding/json decodes %+v", line, want)
		}
	}
	return v
}

// filled is a value of type t with every field set, each to something
// other than its zero value.
func filled(t reflect.Type, n int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d\n\"é\\", n))
	case reflect.Int:
		v.SetInt(int64(n + 1))
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(filled(t.Elem(), n).Addr())
	case reflect.Slice:
		v.Set(reflect.Append(reflect.MakeSlice(t, 0, 2), filled(t.Elem(), n), filled(t.Elem(), n+1)))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(filled(t.Key(), n), filled(t.Elem(), n))
		v.SetMapIndex(filled(t.Key(), n+1), filled(t.Elem(), n+1))
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(filled(t.Field(i).Type, n+i))
			}
		}
	default:
		panic("filled: no value for " + t.String())
	}
	return v
}

// Every field of a record, at every depth, is read by the scanner alone
// and as encoding/json reads it: a field added to Measurement (or to the
// structs it holds) and not to fastdecode.go fails here.
func TestFastDecodeEveryField(t *testing.T) {
	m := filled(reflect.TypeFor[Measurement](), 0).Interface().(Measurement)
	line, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if v := sameAsJSON(t, line); v != decoded {
		t.Fatalf("%s: verdict %d, want decoded", line, v)
	}
	// Empty lists and maps too (encoding/json makes them non-nil).
	empty := `{"samples":[],"knobs":{},"plan":{"engines":[],"threads":[],"fracs":[],"allowed":[]},"interference":{"cpus":[],"used":[],"pressure_pct":0},"host":{"governors":{},"clusters":[{"name":"big","cpus":[],"core_cpus":[],"smt_cpus":[]}]}}`
	if v := sameAsJSON(t, []byte(empty)); v != decoded {
		t.Fatalf("%s: verdict %d, want decoded", empty, v)
	}
}

// The scanner's verdict on lines encoding/json reads in ways of its own.
func TestFastDecodeVerdicts(t *testing.T) {
	good := `{"schema":"blsim/measurement/v1","id":"r1","kind":"reported","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"unit":"t/s","samples":[26.2,26.3],"median":26.25,"cv":0,"status":"ok"}`
	for _, c := range []struct {
		line string
		want verdict
	}{
		{good, decoded},
		{strings.Replace(good, `"r1"`, `"r\u00e9\t\"1\/"`, 1), decoded},
		{strings.Replace(good, `"cv":0`, `"cv":null`, 1), unsure},
		{strings.Replace(good, `"id"`, `"ID"`, 1), unsure},          // encoding/json folds case
		{strings.Replace(good, `"kind"`, `"\u212aind"`, 1), unsure}, // and the Kelvin sign
		{strings.Replace(good, `"r1"`, `"\ud83d\ude00"`, 1), unsure},
		{strings.Replace(good, `"r1"`, "\"\xff\"", 1), unsure},
		{strings.Replace(good, `"cv":0`, `"cv":1e400`, 1), unsure},
		{strings.Replace(good, `"cv":0`, `"cv":0,"cv":1`, 1), unsure},
		{`{"not": "a record"}`, invalid},
		{`{"id": 5}`, invalid},
		{`{"id": "x"`, invalid},
		{good + ` {}`, invalid},
		{`[1,2]`, invalid},
		{`"str"`, invalid},
		{`12`, invalid},
		{`{"id": "x",,}`, invalid},
		{strings.Replace(good, `"poll":50`, `"poll":50.5`, 1), invalid},
		{strings.Replace(good, `"poll":50`, `"poll":050`, 1), invalid},
		{strings.Replace(good, `"r1"`, "\"r\x01\"", 1), invalid},
		{strings.Replace(good, `"r1"`, `"r\x"`, 1), invalid},
		{`null`, unsure},
		{`{}`, decoded},
	} {
		if got := sameAsJSON(t, []byte(c.line)); got != c.want {
			t.Errorf("%s: verdict %d, want %d", c.line, got, c.want)
		}
	}
}

// FuzzFastDecode holds the scanner to encoding/json on any line: what it
// decodes, encoding/json decodes the same; what it finds invalid,
// encoding/json refuses.
func FuzzFastDecode(f *testing.F) {
	good := `{"schema":"blsim/measurement/v1","id":"a","kind":"llama-bench","soc":"rk3588","unit":"t/s","samples":[10,12.5e0,-0.0],"median":11,"status":"ok","plan":{"mode":"token","engines":["big","little"],"fracs":[0.9,0.1],"threads":[4,4],"poll":50,"allowed":[{"cores":2,"ways":1}]},"run":{"prompt_tokens":512,"ubatch":512,"depth":0,"gen_tokens":0},"knobs":{"-t":"4","source":"x"},"host":{"name":"h","governors":{"0":"performance"}},"interference":{"wall_s":1.5,"cpus":[{"cpu":0,"own_pct":99,"other_pct":1}],"pressure_pct":2,"used":[0],"disturbed":false},"stdout":"a\nb\u001b[2J","exit_code":0}`
	filledLine, _ := json.Marshal(filled(reflect.TypeFor[Measurement](), 0).Interface())
	for _, s := range []string{good, string(filledLine), `{"not": "a record"}`, `{"id": 5}`, `null`, `{}`, `{"ID":"x"}`, `{"plan":null}`, `{"samples":[1,"x"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		sameAsJSON(t, bytes.TrimSpace(line))
	})
}
