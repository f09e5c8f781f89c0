package plots

import (
	"os/exec"
	"strings"
	"testing"
)

// plots draws plain data: it does not depend, directly or through
// another package, on calibration (calibrate/...) or on the presets. Its
// tests may load presets; `go list -deps` without -test leaves them out.
func TestImports(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/blsim/blsim/plots").Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list -deps: %s", msg)
	}
	deps := strings.Fields(string(out))
	seen := map[string]bool{}
	for _, d := range deps {
		seen[d] = true
		if d == "github.com/blsim/blsim/calibrate" || strings.HasPrefix(d, "github.com/blsim/blsim/calibrate/") ||
			d == "github.com/blsim/blsim/presets" || strings.HasPrefix(d, "github.com/blsim/blsim/presets/") {
			t.Errorf("plots depends on %s", d)
		}
	}
	// The list is the real one: plots itself and what it draws from.
	for _, want := range []string{"github.com/blsim/blsim/plots", "github.com/blsim/blsim/predict", "gonum.org/v1/plot"} {
		if !seen[want] {
			t.Errorf("go list -deps lacks %s: %q", want, deps)
		}
	}
}
