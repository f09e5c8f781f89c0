package cli

import (
	"io"
	"strconv"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/report"
)

// ValidationOut writes blsim validate's result in format f: text is the
// summary and the top worst configurations (fit.Validation.WriteText);
// json the whole document; md, csv and jsonl every configuration scored,
// worst first, one row each: its id and label, measured and predicted
// t/s, the error, the share of the run waiting on DRAM, and whether the
// profile was fitted on it.
func ValidationOut(w io.Writer, v *fit.Validation, f report.Format, stat fit.Stat, top int) error {
	if f == report.FormatText {
		return v.WriteText(w, stat, top)
	}
	rows := v.Worst
	num := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	set := func(i int) string {
		if rows[i].InFit {
			return "fitted"
		}
		return "held out"
	}
	prec := 2
	if f == report.FormatCSV {
		prec = 4
	}
	cols := []report.Column{
		{Field: "id", Title: "id", Cell: func(i int) string { return rows[i].ID }},
		{Field: "label", Title: "label", Cell: func(i int) string { return rows[i].Label }},
		{Field: "set", Title: "set", Cell: set},
		{Field: "measured_ts", Title: "measured t/s", Number: true, Cell: func(i int) string { return num(rows[i].Measured, prec+1) }},
		{Field: "predicted_ts", Title: "predicted t/s", Number: true, Cell: func(i int) string { return num(rows[i].Predicted, prec+1) }},
		{Field: "err_pct", Title: "error %", Number: true, Cell: func(i int) string { return num(rows[i].ErrPct, prec) }},
		{Field: "dram_bound_pct", Title: "DRAM-bound %", Number: true, Cell: func(i int) string { return num(rows[i].DRAMBoundPct, 1) }},
	}
	return report.WriteTable(w, f, cols, len(rows), v, func(i int) any { return rows[i] })
}
