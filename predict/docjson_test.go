package predict

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDocJSONExample: the abridged JSON document in the package comment
// (doc.go) is what Run gives for blsim predict's defaults: every key it
// shows exists, every string and every number is the real one to the
// digits shown ("..." keys and abridged entries aside), so the example
// cannot go stale.
func TestDocJSONExample(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	in := false
	for _, l := range strings.Split(string(src), "\n") {
		if l == "//\t{" {
			in = true
		}
		if in {
			lines = append(lines, strings.TrimPrefix(l, "//\t"))
		}
		if in && l == "//\t}" {
			break
		}
	}
	dec := json.NewDecoder(strings.NewReader(strings.Join(lines, "\n")))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the doc comment's JSON does not parse: %v", err)
	}
	s, w := load(t, "rk3588")
	p, err := Run(Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var real any
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	n := checkDocValue(t, "", doc, real)
	if n < 40 {
		t.Errorf("only %d values checked", n)
	}
}

// checkDocValue compares the doc's value d with the real value r at path,
// and returns how many leaves it checked.
func checkDocValue(t *testing.T, path string, d, r any) int {
	t.Helper()
	switch dv := d.(type) {
	case map[string]any:
		rm, ok := r.(map[string]any)
		if !ok {
			t.Errorf("%s: the doc shows an object, the document has %T", path, r)
			return 0
		}
		n := 0
		for k, v := range dv {
			if k == "..." {
				continue
			}
			rv, ok := rm[k]
			if !ok {
				t.Errorf("%s.%s: shown in the doc, not in the document", path, k)
				continue
			}
			if sv, ok := v.(string); ok && sv == "..." {
				continue
			}
			n += checkDocValue(t, path+"."+k, v, rv)
		}
		return n
	case []any:
		ra, ok := r.([]any)
		if !ok || len(ra) < len(dv) {
			t.Errorf("%s: the doc shows %d entries, the document %v", path, len(dv), r)
			return 0
		}
		n := 0
		for i := range dv {
			n += checkDocValue(t, fmt.Sprintf("%s[%d]", path, i), dv[i], ra[i])
		}
		return n
	case json.Number:
		rf, ok := r.(float64)
		shown := dv.String()
		want, _ := strconv.ParseFloat(shown, 64)
		digits := 0
		if i := strings.IndexByte(shown, '.'); i >= 0 {
			digits = len(shown) - i - 1
		}
		if !ok || math.Abs(rf-want) > 0.5*math.Pow(10, -float64(digits))+1e-12 {
			t.Errorf("%s: the doc shows %s, the document has %v", path, shown, r)
		}
		return 1
	default:
		if fmt.Sprint(d) != fmt.Sprint(r) {
			t.Errorf("%s: the doc shows %v, the document has %v", path, d, r)
		}
		return 1
	}
}
