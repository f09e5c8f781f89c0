package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStatsCountsSimulations: --stats prints, on stderr, how many runs the
// command simulated (sim.Simulations over the command): issue 29's
// count, at most a third of the 344 the ddr5 token prediction ran before
// the evaluator; a command that simulates nothing says 0; and without the
// flag there is no such line.
func TestStatsCountsSimulations(t *testing.T) {
	line := regexp.MustCompile(`(?m)^blsim: (\d+) runs simulated$`)
	count := func(args ...string) (int, string) {
		t.Helper()
		out, errs, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		m := line.FindAllStringSubmatch(errs, -1)
		if len(m) != 1 {
			t.Fatalf("%v: stderr %q has %d count lines, want 1", args, errs, len(m))
		}
		n, _ := strconv.Atoi(m[0][1])
		return n, out
	}
	n, out := count("predict", "--soc", "ddr5", "--split", "token", "--stats")
	if n < 1 || n > 344/3 {
		t.Errorf("predict --soc ddr5 --split token: %d runs simulated, want 1..%d", n, 344/3)
	}
	plain, errs, _ := runCLI(t, "predict", "--soc", "ddr5", "--split", "token")
	if plain != out {
		t.Error("--stats changed predict's stdout")
	}
	if strings.Contains(errs, "runs simulated") {
		t.Errorf("without --stats stderr has the count: %q", errs)
	}
	if n, _ := count("socs", "--stats"); n != 0 {
		t.Errorf("socs: %d runs simulated, want 0", n)
	}
}
