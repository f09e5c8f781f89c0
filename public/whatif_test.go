package public

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/presets"
)

func TestParseSet(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{in: "engines.*.gemv_overlap=0.73", want: "engines.*.gemv_overlap=0.73"},
		{in: " dram.sustained_gb_s = 68.6", want: "dram.sustained_gb_s=68.6"},
		{in: "engines.big.clock_ghz=3.228", want: "engines.big.clock_ghz=3.228"},
		{in: "gemv_overlap", err: "want PATH=VALUE"},
		{in: "=0.5", err: "want PATH=VALUE"},
		{in: "engines.big.clock_ghz=3.2GHz", err: `the value "3.2GHz" is not a number`},
	} {
		s, err := ParseSet(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseSet(%q) error %v, want one with %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParseSet(%q): %v", c.in, err)
		case c.err == "" && s.String() != c.want:
			t.Errorf("ParseSet(%q) = %s, want %s", c.in, s, c.want)
		}
	}
}

// TestWhatIf: a set changes what it addresses and nothing else. Setting
// each CPU engine's one-token overlap to its own value changes no
// prediction; raising it speeds the i9-13900K's decode rows and leaves
// its prompt rows as they were; a set the SoC cannot take is an error
// naming the set and the row.
func TestWhatIf(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	base, err := Score(rows, Options{SoC: "i9-13900k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Results) < 10 {
		t.Fatalf("%d i9-13900k rows; want 10", len(base.Results))
	}
	s, err := presets.SoC("i9-13900k")
	if err != nil {
		t.Fatal(err)
	}
	own := s.Engines[0].GemvOverlap
	for _, e := range s.Engines {
		if e.GemvOverlap != own {
			t.Fatalf("engine %s's gemv_overlap %g, engine %s's %g: the identity check wants one value", e.Name, e.GemvOverlap, s.Engines[0].Name, own)
		}
	}
	same, err := Score(rows, Options{SoC: "i9-13900k", Sets: []Set{{Path: "engines.*.gemv_overlap", Value: own}}})
	if err != nil {
		t.Fatal(err)
	}
	up, err := Score(rows, Options{SoC: "i9-13900k", Sets: []Set{{Path: "engines.*.gemv_overlap", Value: 0.73}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range base.Results {
		if same.Results[i].Predicted != b.Predicted {
			t.Errorf("%s: %g with its own overlap set, %g without", b.ID, same.Results[i].Predicted, b.Predicted)
		}
		u := up.Results[i]
		decode := strings.HasPrefix(b.Test, "tg")
		switch {
		case decode && u.Predicted <= b.Predicted*1.01:
			t.Errorf("%s (decode): %g at overlap 0.73, %g at %g: want faster", b.ID, u.Predicted, b.Predicted, own)
		case !decode && u.Predicted != b.Predicted:
			t.Errorf("%s (prompt): %g at overlap 0.73, %g at %g: want the same", b.ID, u.Predicted, b.Predicted, own)
		}
		if !strings.Contains(strings.Join(u.Notes, "; "), "what-if: engines.*.gemv_overlap=0.73") {
			t.Errorf("%s: notes %q do not name the what-if", b.ID, u.Notes)
		}
	}
	for _, c := range []struct {
		set  Set
		want string
	}{
		{Set{"engines.p.gemv_overlap", 0.5}, `row INT-1/t4: what-if engines.p.gemv_overlap=0.5 on i9-13900k: parameter "engines.p.gemv_overlap": no engine "p" (have big, little)`},
		{Set{"engines.*.gemv_overlap", 1.5}, "row INT-1/t4: what-if engines.*.gemv_overlap=1.5 on i9-13900k: engines[0].gemv_overlap: 1.5 is outside [0, 1]"},
		{Set{"engines.*.no_such_key", 1}, `what-if engines.*.no_such_key=1 on i9-13900k: parameter "engines.big.no_such_key"`},
	} {
		_, err := Score(rows, Options{SoC: "i9-13900k", Sets: []Set{c.set}})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("set %s: error %v, want %q", c.set, err, c.want)
		}
	}
	if _, err := Score(rows, Options{SoC: "pi6"}); err == nil || !strings.Contains(err.Error(), `soc "pi6": no row names it`) {
		t.Errorf("soc pi6: error %v", err)
	}
}
