package llamabench

import (
	"bufio"
	"fmt"
	"strings"
)

// mdOptional lists the knobs the markdown printer shows only when they were
// varied or differ from the default, in its order.
var mdOptional = []string{
	"n_cpu_moe", "n_threads", "cpu_mask", "cpu_strict", "poll", "n_batch",
	"n_ubatch", "type_k", "type_v", "main_gpu", "split_mode", "no_kv_offload",
	"flash_attn", "devices", "tensor_split", "tensor_buft_overrides",
	"load_mode", "embeddings", "no_op_offload", "no_host", "fit_target",
	"fit_min_ctx",
}

func isCPUBackend(b string) bool {
	return strings.Contains(b, "CPU") || strings.Contains(b, "BLAS") || strings.Contains(b, "ZenDNN")
}

// mdColumns chooses the columns for recs as llama-bench chooses them from
// its command line: a knob is shown when it differs from its default or
// between records; threads always for CPU backends, ngl for others.
func mdColumns(recs []Record) []string {
	cols := []string{"model", "size", "params", "backend"}
	cpu, other := false, false
	for i := range recs {
		if isCPUBackend(recs[i].Backends) {
			cpu = true
		} else {
			other = true
		}
	}
	if other {
		cols = append(cols, "n_gpu_layers")
	}
	for _, name := range mdOptional {
		f := &schema[schemaIndex[name]]
		def, hasDef := mdDefaults[name]
		if !hasDef {
			def = f.def
		}
		show := name == "n_threads" && cpu
		for i := range recs {
			v := value(&recs[i], f)
			if hasDef || f.get == nil {
				show = show || v != def
			}
			show = show || v != value(&recs[0], f)
		}
		if show {
			cols = append(cols, name)
		}
	}
	return append(cols, "test", "t/s")
}

// mdWidth is llama-bench's get_field_width: negative means left-aligned.
func mdWidth(col string) int {
	switch col {
	case "model":
		return -30
	case "t/s":
		return 20
	case "size", "params":
		return 10
	case "n_gpu_layers", "flash_attn":
		return 3
	case "n_threads", "n_batch":
		return 7
	case "n_ubatch":
		return 8
	case "type_k", "type_v", "split_mode":
		return 6
	case "load_mode":
		return 10
	case "devices":
		return -12
	case "test":
		return 15
	case "no_op_offload", "no_host":
		return 4
	}
	w := max(len(col), 10)
	if i, ok := schemaIndex[col]; !ok || schema[i].kind == kindString {
		return -w
	}
	return w
}

// pad is printf's "%*s": widths count bytes, as in C.
func pad(s string, w int) string {
	switch {
	case w < 0 && len(s) < -w:
		return s + strings.Repeat(" ", -w-len(s))
	case w > 0 && len(s) < w:
		return strings.Repeat(" ", w-len(s)) + s
	}
	return s
}

// mdCell returns what the markdown printer shows for col in rec.
func mdCell(rec *Record, col string) string {
	switch col {
	case "model":
		return rec.ModelType
	case "size":
		if rec.ModelSizeBytes < 1<<30 {
			return fmt.Sprintf("%.2f MiB", float64(rec.ModelSizeBytes)/(1<<20))
		}
		return fmt.Sprintf("%.2f GiB", float64(rec.ModelSizeBytes)/(1<<30))
	case "params":
		if rec.ModelParams < 1e9 {
			return fmt.Sprintf("%.2f M", float64(rec.ModelParams)/1e6)
		}
		return fmt.Sprintf("%.2f B", float64(rec.ModelParams)/1e9)
	case "backend":
		return rec.Backends
	case "test":
		var s string
		switch {
		case rec.NPrompt > 0 && rec.NGen == 0:
			s = fmt.Sprintf("pp%d", rec.NPrompt)
		case rec.NGen > 0 && rec.NPrompt == 0:
			s = fmt.Sprintf("tg%d", rec.NGen)
		default:
			s = fmt.Sprintf("pp%d+tg%d", rec.NPrompt, rec.NGen)
		}
		if rec.NDepth > 0 {
			s += fmt.Sprintf(" @ d%d", rec.NDepth)
		}
		return s
	case "t/s":
		return fmt.Sprintf("%.2f ± %.2f", rec.AvgTS, rec.StddevTS)
	}
	return value(rec, &schema[schemaIndex[col]])
}

// writeMarkdown writes recs as llama-bench's markdown printer does. Each run
// of records with the same build gets its own table and footer.
func writeMarkdown(w *bufio.Writer, recs []Record) {
	for len(recs) > 0 {
		n := 1
		for n < len(recs) && recs[n].BuildCommit == recs[0].BuildCommit && recs[n].BuildNumber == recs[0].BuildNumber {
			n++
		}
		writeMDTable(w, recs[:n])
		recs = recs[n:]
	}
}

func writeMDTable(w *bufio.Writer, recs []Record) {
	cols := mdColumns(recs)
	w.WriteString("|")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", pad(mdDisplayName(c), mdWidth(c)))
	}
	w.WriteString("\n|")
	for _, c := range cols {
		wd, end := mdWidth(c), "-"
		if wd > 0 {
			end = ":"
		}
		fmt.Fprintf(w, " %s%s |", strings.Repeat("-", max(wd, -wd)-1), end)
	}
	w.WriteString("\n")
	for i := range recs {
		w.WriteString("|")
		for _, c := range cols {
			wd := mdWidth(c)
			if c == "t/s" {
				wd++ // as llama-bench: "±" is two bytes
			}
			fmt.Fprintf(w, " %s |", pad(mdCell(&recs[i], c), wd))
		}
		w.WriteString("\n")
	}
	fmt.Fprintf(w, "\nbuild: %s (%d)\n", recs[0].BuildCommit, recs[0].BuildNumber)
}
