package public

import (
	"strings"
	"testing"
)

// TestRowDRAM: a row whose device ran another memory than its preset's
// (Row.DRAM) is predicted with it: INT-1/t8, a decode that DRAM bounds,
// runs faster on the i9-13900K's DDR5-6400 than on the preset's
// DDR5-5600, and says so in its notes; a malformed memory is the row's
// one-line error.
func TestRowDRAM(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	var row Row
	for _, r := range rows {
		if r.ID == "INT-1/t8" {
			row = r
		}
	}
	if row.DRAM != "ddr5-6400x128" {
		t.Fatalf("INT-1/t8 dram %q, want ddr5-6400x128 (its report's DDR5-6400)", row.DRAM)
	}
	with, err := Predict(row)
	if err != nil {
		t.Fatal(err)
	}
	row.DRAM = ""
	without, err := Predict(row)
	if err != nil {
		t.Fatal(err)
	}
	if r := with.Predicted / without.Predicted; r < 1.05 || r > 6400.0/5600 {
		t.Errorf("INT-1/t8 %.2f t/s on DDR5-6400, %.2f on DDR5-5600: ratio %.3f, want above 1.05 and at most the rates' 1.143", with.Predicted, without.Predicted, r)
	}
	found := false
	for _, n := range with.Notes {
		found = found || strings.HasPrefix(n, "the device's memory ddr5-6400x128: 102 GB/s peak")
	}
	if !found {
		t.Errorf("notes %q: want the device's memory", with.Notes)
	}
	bad := Row{ID: "X", Family: "intel", Source: "a/b#1", SoC: "i9-13900k", Model: "m", Scheme: "Q4_0", TPS: 1, Threads: 1, Date: "2023", Placement: "os", Test: "tg128", DRAM: "ddr5-6400"}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "row X: dram: ") || !strings.Contains(err.Error(), "TYPE-MTSxBITS") {
		t.Errorf("dram ddr5-6400: %v", err)
	}
}
