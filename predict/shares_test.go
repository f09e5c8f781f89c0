package predict

import (
	"strings"
	"testing"
)

func TestParseShares(t *testing.T) {
	for _, tc := range []struct {
		spec string
		n    int
		want []float64
		err  string
	}{
		{"0.12", 2, []float64{0.88, 0.12}, ""},
		{"0.1, 0.3", 3, []float64{0.6, 0.1, 0.3}, ""},
		{"0.5,0.6", 3, nil, "sum to 1.1"},
		{"0.5", 3, nil, "1 values for 2 engines"},
		{"x", 2, nil, `"x" is not auto or a number`},
		{"1.5", 2, nil, "not auto or a number in [0,1]"},
		{"NaN", 2, nil, "not auto or a number"},
	} {
		got, err := ParseShares(tc.spec, tc.n)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("%q: %v %v", tc.spec, got, err)
		}
		for i := range got {
			if d := got[i] - tc.want[i]; d > 1e-12 || d < -1e-12 {
				t.Errorf("%q: %v, want %v", tc.spec, got, tc.want)
			}
		}
	}
}

func TestParseModesEnginesThreads(t *testing.T) {
	if m, err := ParseModes("both"); m != nil || err != nil {
		t.Errorf("both: %v %v", m, err)
	}
	if m, err := ParseModes("expert"); len(m) != 1 || m[0] != "expert" || err != nil {
		t.Errorf("expert: %v %v", m, err)
	}
	if _, err := ParseModes("all"); err == nil || !strings.Contains(err.Error(), "not token, expert or both") {
		t.Errorf("all: %v", err)
	}
	if e := ParseEngines(" big, npu"); len(e) != 2 || e[0] != "big" || e[1] != "npu" || ParseEngines("") != nil {
		t.Errorf("engines %q", e)
	}
	if th, err := ParseThreads("4, 8", 2); err != nil || th[0] != 4 || th[1] != 8 {
		t.Errorf("threads %v %v", th, err)
	}
	for spec, want := range map[string]string{"4": "1 values for 2 engines", "4,x": `"x" is not a whole number`, "4,0": `"0" is not a whole number`} {
		if _, err := ParseThreads(spec, 2); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", spec, err, want)
		}
	}
}

// TestListLengthErrorsShowTheForm: a list of the wrong length says what
// it wants, with an example of the form.
func TestListLengthErrorsShowTheForm(t *testing.T) {
	if _, err := ParseShares("0.2", 3); err == nil || !strings.Contains(err.Error(), "want 0.1,0.1 (one share per engine after the first") {
		t.Errorf("ParseShares(0.2, 3 engines): %v", err)
	}
	if _, err := ParseThreads("4", 3); err == nil || !strings.Contains(err.Error(), "want 4,4,4 (one thread count per engine") {
		t.Errorf("ParseThreads(4, 3 engines): %v", err)
	}
}
