package llamabench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// mdDecoder reads llama-bench's markdown output: a table, a blank line and a
// footer "build: <commit> (<number>)". Rows wait for the footer, which gives
// their build; several outputs may follow one another.
type mdDecoder struct {
	src     *source
	header  []string // field names of the columns; nil outside a table
	needSep bool     // whether the next row should be the separator row
	pending []Record // rows waiting for the footer
	out     []result // records and errors ready to be returned
	eof     bool
}

type result struct {
	rec Record
	err error
}

func (d *mdDecoder) next() (Record, error) {
	for len(d.out) == 0 {
		if d.eof {
			return Record{}, io.EOF
		}
		l, n, err := d.src.readLine()
		if err == io.EOF {
			d.eof = true
			d.flush()
			continue
		}
		if err != nil {
			return Record{}, err
		}
		d.readLine(strings.TrimSpace(l), n)
	}
	r := d.out[0]
	d.out = d.out[1:]
	return r.rec, r.err
}

// flush hands the pending rows out.
func (d *mdDecoder) flush() {
	for _, rec := range d.pending {
		d.out = append(d.out, result{rec: rec})
	}
	d.pending = nil
}

func (d *mdDecoder) fail(line int, format string, args ...any) {
	d.out = append(d.out, result{err: d.src.errorf(line, format, args...)})
}

func (d *mdDecoder) readLine(l string, n int) {
	switch {
	case l == "":
		d.header = nil
	case strings.HasPrefix(l, "build:"):
		d.header = nil
		d.footer(l, n)
	case l[0] != '|':
		d.fail(n, "unexpected line %s", quote(l))
	case len(l) < 2 || l[len(l)-1] != '|':
		d.fail(n, "table row not closed by |")
	default:
		cells := strings.Split(l[1:len(l)-1], "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		d.row(cells, n)
	}
}

// footer gives the pending rows the build named in line.
func (d *mdDecoder) footer(l string, n int) {
	defer d.flush()
	rest := strings.TrimSpace(strings.TrimPrefix(l, "build:"))
	i := strings.LastIndex(rest, " (")
	if i < 0 || !strings.HasSuffix(rest, ")") {
		d.fail(n, "footer not of the form \"build: <commit> (<number>)\": %s", quote(l))
		return
	}
	commit, num := rest[:i], rest[i+2:len(rest)-1]
	number, err := strconv.Atoi(num)
	if err != nil {
		d.fail(n, "footer: invalid build number %s", quote(num))
		return
	}
	for i := range d.pending {
		rec := &d.pending[i]
		rec.BuildCommit, rec.BuildNumber = commit, number
		rec.Fields["build_commit"], rec.Fields["build_number"] = commit, num
	}
}

// row reads a header, separator or data row.
func (d *mdDecoder) row(cells []string, n int) {
	if d.header == nil || isMDHeader(cells) {
		d.flush() // rows of an earlier table that had no footer
		d.header = make([]string, len(cells))
		for i, c := range cells {
			d.header[i] = mdFieldName(c)
		}
		d.needSep = true
		return
	}
	if d.needSep {
		d.needSep = false
		if isMDSeparator(cells) {
			return
		}
		d.fail(n, "table header not followed by a separator row")
	}
	if k := len(cells) - len(d.header); k > 0 {
		// llama-bench does not escape "|"; only tensor override patterns
		// (regular expressions) are likely to hold one.
		if ot := indexOf(d.header, "tensor_buft_overrides"); ot >= 0 {
			joined := strings.Join(cells[ot:ot+k+1], "|")
			cells = append(append(cells[:ot:ot], joined), cells[ot+k+1:]...)
		}
	}
	if len(cells) != len(d.header) {
		d.fail(n, "row has %d cells, header has %d", len(cells), len(d.header))
		return
	}
	fields := make(map[string]string, len(cells))
	for i, name := range d.header {
		if name != "" {
			fields[name] = cells[i]
		}
	}
	rec, err := buildRecord(fields, n, mdFix)
	if err != nil {
		d.fail(n, "%v", err)
		return
	}
	d.pending = append(d.pending, rec)
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func isMDHeader(cells []string) bool {
	return indexOf(cells, "t/s") >= 0 && indexOf(cells, "test") >= 0
}

func isMDSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// mdDisplayNames maps field names to the column names llama-bench's
// markdown printer shows (get_field_display_name), plus the columns that
// stand for one field.
var mdDisplayNames = map[string]string{
	"model_type": "model", "backends": "backend",
	"n_gpu_layers": "ngl", "split_mode": "sm", "n_threads": "threads",
	"no_kv_offload": "nkvo", "flash_attn": "fa", "load_mode": "lm",
	"embeddings": "embd", "no_op_offload": "nopo", "no_host": "noh",
	"devices": "dev", "tensor_split": "ts", "tensor_buft_overrides": "ot",
	"fit_target": "fitt", "fit_min_ctx": "fitc",
}

var mdFieldNames = func() map[string]string {
	m := make(map[string]string, len(mdDisplayNames))
	for f, c := range mdDisplayNames {
		m[c] = f
	}
	return m
}()

func mdFieldName(column string) string {
	if f, ok := mdFieldNames[column]; ok {
		return f
	}
	return column
}

func mdDisplayName(field string) string {
	if c, ok := mdDisplayNames[field]; ok {
		return c
	}
	return field
}

// mdDefaults holds llama-bench's defaults for the knobs whose columns the
// markdown printer leaves out when they were not varied (cmd_params_defaults).
// n_threads has no fixed default: it is the number of cores.
var mdDefaults = map[string]string{
	"n_cpu_moe": "0", "cpu_mask": "0x0", "cpu_strict": "0", "poll": "50",
	"n_batch": "2048", "n_ubatch": "512",
}

// mdFix types the markdown columns that stand for other fields, and gives
// the knobs whose columns are absent their defaults.
func mdFix(rec *Record) error {
	for name, def := range mdDefaults {
		if _, ok := rec.Fields[name]; !ok {
			if err := schema[schemaIndex[name]].set(rec, def); err != nil {
				return err
			}
		}
	}
	var err error
	if v, ok := rec.Fields["size"]; ok {
		if rec.ModelSizeBytes, err = parseScaled(v, map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}); err != nil {
			return fmt.Errorf("size: %v", err)
		}
	}
	if v, ok := rec.Fields["params"]; ok {
		if rec.ModelParams, err = parseScaled(v, map[string]float64{"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}); err != nil {
			return fmt.Errorf("params: %v", err)
		}
	}
	if v, ok := rec.Fields["test"]; ok {
		if rec.NPrompt, rec.NGen, rec.NDepth, err = parseTest(v); err != nil {
			return err
		}
	}
	if v, ok := rec.Fields["t/s"]; ok {
		avg, sd, hasSD := strings.Cut(v, "±")
		if rec.AvgTS, err = parseFloat(strings.TrimSpace(avg)); err != nil {
			return fmt.Errorf("t/s: %v", err)
		}
		if hasSD {
			if rec.StddevTS, err = parseFloat(strings.TrimSpace(sd)); err != nil {
				return fmt.Errorf("t/s: %v", err)
			}
		}
	}
	return nil
}

// parseScaled reads "19.71 GiB" with the given unit scales.
func parseScaled(s string, units map[string]float64) (int64, error) {
	num, unit, _ := strings.Cut(strings.TrimSpace(s), " ")
	scale, ok := units[strings.TrimSpace(unit)]
	f, err := parseFloat(num)
	if !ok || err != nil || f < 0 || f*scale >= 1<<63 {
		return 0, fmt.Errorf("invalid value %s", quote(s))
	}
	return int64(f*scale + 0.5), nil
}

// parseTest reads the test column: "pp512", "tg128", "pp512+tg128", each
// possibly followed by " @ d<depth>". Spaces are ignored, as older versions
// wrote "pp 512".
func parseTest(s string) (nPrompt, nGen, nDepth int, err error) {
	bad := fmt.Errorf("invalid test %s", quote(s))
	t := strings.ReplaceAll(s, " ", "")
	t, depth, hasDepth := strings.Cut(t, "@")
	count := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && s[0] != '+' && s[0] != '-'
	}
	var ok bool
	if hasDepth {
		if !strings.HasPrefix(depth, "d") {
			return 0, 0, 0, bad
		}
		if nDepth, ok = count(depth[1:]); !ok {
			return 0, 0, 0, bad
		}
	}
	for _, part := range strings.Split(t, "+") {
		switch {
		case strings.HasPrefix(part, "pp"):
			nPrompt, ok = count(part[2:])
		case strings.HasPrefix(part, "tg"):
			nGen, ok = count(part[2:])
		default:
			ok = false
		}
		if !ok {
			return 0, 0, 0, bad
		}
	}
	return nPrompt, nGen, nDepth, nil
}
