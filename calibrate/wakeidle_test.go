package calibrate

import (
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

// recordedWakes reads testdata/wake-idle/bench.txt, a run of
// probe.BenchmarkFutexWakeByIdle in a quiet window of the 2-vCPU
// development VM, and returns the median over its rounds of each idle's
// wake (µs), keyed "0s", "100µs", "1ms", "10ms". The warm-up run's round
// (before the benchmark's name) is left out.
func recordedWakes(t *testing.T) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile("testdata/wake-idle/bench.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "BenchmarkFutexWakeByIdle")
	if i < 0 {
		t.Fatal("bench.txt: no benchmark line")
	}
	re := regexp.MustCompile(`(0s|100µs|1ms|10ms) ([0-9.]+) µs`)
	by := map[string][]float64{}
	for _, round := range strings.Split(s[i:], "round ")[1:] {
		for _, m := range re.FindAllStringSubmatch(round, -1) {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			by[m[1]] = append(by[m[1]], v)
		}
	}
	out := map[string]float64{}
	for k, vs := range by {
		if len(vs) != 7 {
			t.Fatalf("bench.txt: %d rounds at %s, want 7", len(vs), k)
		}
		slices.Sort(vs)
		out[k] = vs[3]
	}
	return out
}

// wakeRecord is the futex_wake_idle step's record of those wakes, as
// calibrate writes it.
func wakeRecord(w map[string]float64) measure.Measurement {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	return measure.Measurement{ID: "futex_wake_idle/1-0", Kind: measure.FutexWake, Param: "handoff.sleep_exit_us", Unit: "us",
		Median: w["10ms"] - w["0s"], Status: measure.StatusOK,
		Knobs: map[string]string{"idle_ms": "10", "wake_idle_us": f(w["10ms"]), "wake_now_us": f(w["0s"]),
			"wake_100us_us": f(w["100µs"]), "wake_1ms_us": f(w["1ms"])}}
}

// TestWakeByIdleRecorded: on this VM the wake after a short idle is not
// linear in the idle (testdata/wake-idle/bench.txt, seven interleaved
// rounds in one quiet window, medians): at once 22.42 µs, after 100 µs
// 18.09 (quicker than at once: nothing of the sleep exit), after 1 ms
// 29.70 (7.28 µs, 0.14 of the 10 ms exit, where the linear rule charges
// 0.10: 5.18 µs), after 10 ms 74.26 (the exit, 51.84 µs). The profile's
// rule interpolates between the measured idles (model.Handoff.
// SleepExitByIdle, set by calibrate from the step's record), so it gives
// each measured wake back.
func TestWakeByIdleRecorded(t *testing.T) {
	w := recordedWakes(t)
	for k, want := range map[string]float64{"0s": 22.42, "100µs": 18.09, "1ms": 29.70, "10ms": 74.26} {
		if math.Abs(w[k]-want) > 0.005 {
			t.Errorf("wake after %s: median %.2f µs, docs/busy-machine.md says %.2f", k, w[k], want)
		}
	}
	ms := []measure.Measurement{wakeRecord(w)}
	h := Prior("vm", twoEngines(), ms, nil).Handoff
	exit := w["10ms"] - w["0s"]
	if math.Abs(h.SleepExitUS-exit) > 1e-9 || h.SleepExitAfterUS != 10000 || len(h.SleepExitByIdle) != 2 {
		t.Fatalf("prior: sleep exit %g µs after %g µs, by idle %v; want %g after 10000, two points", h.SleepExitUS, h.SleepExitAfterUS, h.SleepExitByIdle, exit)
	}
	linear := h
	linear.SleepExitByIdle = nil
	for _, c := range []struct {
		key    string
		idleUS float64
	}{{"100µs", 100}, {"1ms", 1000}, {"10ms", 10000}} {
		want := max(0, w[c.key]-w["0s"]) // what the idle adds to the wake
		got := h.WakeUS(c.idleUS, 0) - h.FutexWakeUS
		lin := linear.WakeUS(c.idleUS, 0) - h.FutexWakeUS
		t.Logf("after %s: measured %+.2f µs, by idle %.2f, linear %.2f", c.key, w[c.key]-w["0s"], got, lin)
		if math.Abs(got-want) > 0.01 {
			t.Errorf("after %s: the rule charges %.2f µs of sleep exit, measured %.2f", c.key, got, want)
		}
		if c.key == "1ms" && math.Abs(lin-want) < 1.5 {
			t.Errorf("after 1 ms the linear rule charges %.2f µs, within 1.5 of the measured %.2f: then it would be linear enough", lin, want)
		}
	}
	// Between measured idles, linear: halfway from 100 µs to 1 ms, half
	// of 1 ms's share.
	if got, want := h.ExitShare(550), h.SleepExitByIdle[0].Share+(h.SleepExitByIdle[1].Share-h.SleepExitByIdle[0].Share)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("share at 550 µs %g, want %g", got, want)
	}
}
