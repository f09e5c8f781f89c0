package parts

import (
	"strings"
	"testing"
)

// TestGenericQ4_0OpsPerCycleBadInput: a core's generic Q4_0 loop rate
// below zero or above the core's int8 peak is refused, naming the key.
func TestGenericQ4_0OpsPerCycleBadInput(t *testing.T) {
	for _, tc := range []struct{ file, from, to, want string }{
		{"cores/gracemont.yaml", "generic_q4_0_ops_per_cycle: 10", "generic_q4_0_ops_per_cycle: -1", "generic_q4_0_ops_per_cycle -1 is outside (0, int8_ops_per_cycle 32]"},
		{"cores/gracemont.yaml", "generic_q4_0_ops_per_cycle: 10", "generic_q4_0_ops_per_cycle: 33", "generic_q4_0_ops_per_cycle 33 is outside (0, int8_ops_per_cycle 32]"},
		{"cores/raptor-cove.yaml", "generic_q4_0_ops_per_cycle: 16", "generic_q4_0_ops_per_cycle: 128", "generic_q4_0_ops_per_cycle 128 is outside (0, int8_ops_per_cycle 127.6]"},
	} {
		if err := loadEdited(t, tc.file, tc.from, tc.to); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.file) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
}

// TestGracemontMultiplyPipe: the E-core's k-quant peak is one 128-bit
// multiply pipe's (InstLatX64: VPMADDUBSW and VPMADDWD ymm 2.0 cycles
// each), a quarter of the Raptor Cove's two 256-bit pipes, so its derived
// k-quant rate per cycle is a quarter of the P-core's; its VNNI peak
// (cpufp, and the same dump) stays half; 2023's Q4_0 loop, bound by other
// things, runs at 0.625 of the P-core's.
func TestGracemontMultiplyPipe(t *testing.T) {
	e, p := lib().cores["gracemont"], lib().cores["raptor-cove"]
	er, _ := e.Rates(nil)
	pr, _ := p.Rates(nil)
	for _, tc := range []struct {
		typ  string
		want float64
	}{
		{"q3_k", 16.0 / 64},
		{"q8_0", 32 / 127.6},
	} {
		if got := er[tc.typ] / pr[tc.typ]; got < tc.want*0.99 || got > tc.want*1.01 {
			t.Errorf("gracemont %s %g over raptor-cove's %g = %.3f, want %.3f", tc.typ, er[tc.typ], pr[tc.typ], got, tc.want)
		}
	}
	// 2023's Q4_0 loop: 64 ops a block over the P-core's FMA chain (4.0
	// cycles) and the E-core's micro-ops over its width (32/5 = 6.4).
	if e.GenericQ4_0OpsPerCycle != 64/6.4 || p.GenericQ4_0OpsPerCycle != 64/4.0 {
		t.Errorf("generic_q4_0_ops_per_cycle: gracemont %g, raptor-cove %g; want %g and %g", e.GenericQ4_0OpsPerCycle, p.GenericQ4_0OpsPerCycle, 64/6.4, 64/4.0)
	}
}

// loadEdited loads the library with one core file's text from replaced by
// to (the test SMT core left out) and returns load's error.
func loadEdited(t *testing.T, file, from, to string) error {
	t.Helper()
	fsys := smtCore(t, "")
	delete(fsys, "cores/test-smt.yaml")
	b := string(fsys[file].Data)
	if !strings.Contains(b, from) {
		t.Fatalf("%s has no %q", file, from)
	}
	fsys[file].Data = []byte(strings.Replace(b, from, to, 1))
	_, err := load(fsys)
	return err
}
