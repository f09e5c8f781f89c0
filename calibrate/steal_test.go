package calibrate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
)

// TestRecordedStealRefusal reads two quick calibrations that refused for
// load (quick-vm-steal: main d465c53 on the 2-vCPU VM, 2026-12-03 18:49
// and 18:56 UTC, `blsim calibrate --cluster big=0-1 --quick --plans
// fit+heldout`, tries 5 and 10 of a quiet campaign), whose runs the
// hypervisor disturbed: steal on both CPUs for 14–50% of their time,
// other processes at most a few percent. The refusal, and the skip of
// the later rounds, must name the hypervisor, not other processes, which
// the user would look for in vain (both said "another process on cpu0"
// before).
func TestRecordedStealRefusal(t *testing.T) {
	for _, c := range []struct {
		file      string
		disturbed int // configurations that stayed disturbed, of 15
	}{
		{"testdata/quick-vm-steal/steal-1.jsonl", 7},
		{"testdata/quick-vm-steal/steal-2.jsonl", 15},
	} {
		t.Run(c.file, func(t *testing.T) {
			ms, errs := measure.ReadFile(c.file)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			skip := loadedFirstRound(ms)
			if want := fmt.Sprintf("%d of the first round's 15 configurations stayed disturbed by the hypervisor (steal)", c.disturbed); !strings.HasPrefix(skip, want) {
				t.Errorf("skip of the later rounds %q, want it to say %q", skip, want)
			}
			es, ok, err := RecordedEngines(ms)
			if !ok || err != nil {
				t.Fatalf("RecordedEngines: %v, %v", ok, err)
			}
			w, err := RecordedWorkload(ms)
			if err != nil {
				t.Fatal(err)
			}
			// As calibrate: the fit's own refusal, or its check's.
			_, r, err := fit.Holdout(Prior("vm", es, ms, w), ms, []string{"set=" + HeldOutGrid}, fit.Options{})
			if err == nil {
				err = r.Check()
			}
			var ie *fit.InterferenceError
			if !errors.As(err, &ie) {
				t.Fatalf("refit: %v, want an *fit.InterferenceError", err)
			}
			msg := err.Error()
			for _, want := range []string{"the hypervisor (steal) disturbed the runs", "had the hypervisor take cpu", "a VM with dedicated CPUs"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "disagree") {
				t.Errorf("message blames the model:\n%s", msg)
			}
			t.Log(msg)
		})
	}
}
