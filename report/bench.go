package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/blsim/blsim/predict"
)

// BenchTable writes llama-bench's table, predicted: one row a run, with
// llama-bench's columns (model, threads, poll, n_ubatch, test, t/s; in
// csv and json n_threads, n_prompt, n_gen, avg_ts) and the split
// dispatcher's best plan beside each.
func BenchTable(w io.Writer, b *predict.Bench, f Format) error {
	rows := b.Rows
	// split is a cell of row i's split, "-" when it has none.
	split := func(cell func(*predict.BenchSplit) string) func(int) string {
		return func(i int) string {
			if rows[i].Split == nil {
				return "-"
			}
			return cell(rows[i].Split)
		}
	}
	num := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	cols := []Column{
		{"soc", "soc", false, func(i int) string { return rows[i].SoC }},
		{"model", "model", false, func(i int) string { return rows[i].Model }},
		{"n_threads", "threads", true, func(i int) string { return strconv.Itoa(rows[i].NThreads) }},
		{"where", "where", false, func(i int) string { return rows[i].Where }},
		{"poll", "poll", true, func(i int) string { return strconv.Itoa(rows[i].Poll) }},
		{"n_ubatch", "n_ubatch", true, func(i int) string { return strconv.Itoa(rows[i].NUbatch) }},
	}
	if f == FormatCSV { // numbers only, as llama-bench's csv has them
		cols = append(cols,
			Column{"n_prompt", "", true, func(i int) string { return strconv.Itoa(rows[i].NPrompt) }},
			Column{"n_gen", "", true, func(i int) string { return strconv.Itoa(rows[i].NGen) }},
			Column{"n_depth", "", true, func(i int) string { return strconv.Itoa(rows[i].NDepth) }},
			Column{"test", "", false, func(i int) string { return rows[i].Test }},
			Column{"avg_ts", "", true, func(i int) string { return num(rows[i].AvgTS, 4) }},
			Column{"split", "", false, split((*predict.BenchSplit).Describe)},
			Column{"split_ts", "", true, split(func(s *predict.BenchSplit) string { return num(s.AvgTS, 4) })},
			Column{"gain_pct", "", true, split(func(s *predict.BenchSplit) string { return num(s.GainPct, 4) })},
			Column{"lo_pct", "", true, split(func(s *predict.BenchSplit) string { return num(s.Interval.LoPct, 4) })},
			Column{"hi_pct", "", true, split(func(s *predict.BenchSplit) string { return num(s.Interval.HiPct, 4) })},
			Column{"verdict", "", false, split(func(s *predict.BenchSplit) string { return string(s.Verdict) })})
	} else {
		cols = append(cols,
			Column{"test", "test", false, func(i int) string { return rows[i].Test }},
			Column{"avg_ts", "t/s", true, func(i int) string { return num(rows[i].AvgTS, 2) }},
			Column{"split", "split", false, split((*predict.BenchSplit).Describe)},
			Column{"split_ts", "split t/s", true, split(func(s *predict.BenchSplit) string { return num(s.AvgTS, 2) })},
			Column{"gain_pct", "gain", true, split(func(s *predict.BenchSplit) string { return fmt.Sprintf("%+.2f%%", s.GainPct) })},
			Column{"interval_pct", "90% interval", true, split(func(s *predict.BenchSplit) string {
				return fmt.Sprintf("[%+.1f, %+.1f]%%", s.Interval.LoPct, s.Interval.HiPct)
			})},
			Column{"verdict", "verdict", false, split(func(s *predict.BenchSplit) string { return string(s.Verdict) })})
	}
	return WriteTable(w, f, cols, len(rows), b, func(i int) any { return rows[i] })
}

// ThreadsOut writes a thread sweep in format f: text is ThreadsTable, with
// the advice; md and csv are its rows (the pool's clusters, -t, the
// --cpu-mask, pp and tg t/s); json the whole sweep, jsonl one row a line.
func ThreadsOut(w io.Writer, t *predict.ThreadsSweep, f Format) error {
	if f == FormatText {
		return ThreadsTable(w, t)
	}
	rows := t.Rows
	tps := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	cols := []Column{
		{"soc", "soc", false, func(int) string { return t.SoC }},
		{"model", "model", false, func(int) string { return t.Workload }},
		{"cores", "cores", false, func(i int) string { return rows[i].Mask }},
		{"n_threads", "threads", true, func(i int) string { return strconv.Itoa(rows[i].Threads) }},
		{"cpu_mask", "cpu_mask", false, func(i int) string {
			if rows[i].Unpinned {
				return "unpinned (" + string(t.Placement) + ")"
			}
			return rows[i].CPUMask
		}},
		{"pp_ts", t.PP + " t/s", true, func(i int) string { return tps(rows[i].PPTPS) }},
		{"tg_ts", t.TG + " t/s", true, func(i int) string { return tps(rows[i].TGTPS) }},
	}
	return WriteTable(w, f, cols, len(rows), t, func(i int) any { return rows[i] })
}
