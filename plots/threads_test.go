package plots

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/predict"
)

// TestThreadsFigure: a thread sweep draws a panel per phase, a line per
// set of clusters, and names each phase's recommendation as the table
// does.
func TestThreadsFigure(t *testing.T) {
	s, w := load(t, "rk3588")
	th, err := predict.Threads(predict.ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := View(KindThreads, nil, ViewData{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(fig.Texts(), "\n")
	for _, want := range []string{"big+little", "little", "pp512 t/s", "tg8 t/s",
		fmt.Sprintf("pp512: %s, %.2f t/s", th.BestPP.Flags(th.Placement), th.BestPP.PPTPS), "split (pp: token split"} {
		if !strings.Contains(text, want) {
			t.Errorf("figure lacks %q:\n%s", want, text)
		}
	}
	if len(fig.Panels) != 2 {
		t.Errorf("%d panels", len(fig.Panels))
	}
	if _, err := Threads(nil); err == nil {
		t.Error("a nil sweep drew")
	}
}
