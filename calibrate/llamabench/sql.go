package llamabench

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
)

// sqlDecoder reads llama-bench's sql output: a CREATE TABLE statement, which
// it skips, then one INSERT statement per line.
type sqlDecoder struct {
	src      *source
	inCreate bool
}

func (d *sqlDecoder) next() (Record, error) {
	for {
		l, n, err := d.src.readLine()
		if err != nil {
			return Record{}, err
		}
		l = strings.TrimSpace(l)
		switch {
		case d.inCreate:
			d.inCreate = !strings.HasSuffix(l, ");")
			continue
		case l == "":
			continue
		case hasPrefixFold(l, "CREATE TABLE"):
			d.inCreate = !strings.HasSuffix(l, ");")
			continue
		case !hasPrefixFold(l, "INSERT INTO"):
			return Record{}, d.src.errorf(n, "not an INSERT statement: %s", quote(l))
		}
		names, vals, err := parseInsert(l)
		if err != nil {
			return Record{}, d.src.errorf(n, "%v", err)
		}
		fields := make(map[string]string, len(names))
		for i, name := range names {
			fields[name] = vals[i]
		}
		rec, err := buildRecord(fields, n, nil)
		if err != nil {
			return Record{}, d.src.errorf(n, "%v", err)
		}
		return rec, nil
	}
}

// parseInsert reads "INSERT INTO t (a, b) VALUES ('x', 'y');". Values are
// quoted with ' (a quote doubled stands for one quote) or bare.
func parseInsert(l string) (names, vals []string, err error) {
	bad := errors.New("malformed INSERT statement")
	open := strings.IndexByte(l, '(')
	cls := strings.IndexByte(l, ')')
	if open < 0 || cls < open {
		return nil, nil, bad
	}
	for _, name := range strings.Split(l[open+1:cls], ",") {
		names = append(names, strings.TrimSpace(name))
	}
	rest := strings.TrimSpace(l[cls+1:])
	if !hasPrefixFold(rest, "VALUES") {
		return nil, nil, bad
	}
	rest = strings.TrimSpace(rest[len("VALUES"):])
	if !strings.HasPrefix(rest, "(") {
		return nil, nil, bad
	}
	rest = rest[1:]
	for {
		rest = strings.TrimLeft(rest, " \t")
		var v string
		if strings.HasPrefix(rest, "'") {
			var b strings.Builder
			i := 1
			for ; i < len(rest); i++ {
				if rest[i] == '\'' {
					if i+1 < len(rest) && rest[i+1] == '\'' {
						b.WriteByte('\'')
						i++
						continue
					}
					break
				}
				b.WriteByte(rest[i])
			}
			if i >= len(rest) {
				return nil, nil, errors.New("unterminated string in INSERT statement")
			}
			v, rest = b.String(), strings.TrimLeft(rest[i+1:], " \t")
		} else {
			i := strings.IndexAny(rest, ",)")
			if i < 0 {
				return nil, nil, bad
			}
			v, rest = strings.TrimSpace(rest[:i]), rest[i:]
		}
		vals = append(vals, v)
		switch {
		case strings.HasPrefix(rest, ","):
			rest = rest[1:]
			continue
		case strings.HasPrefix(rest, ")"):
		default:
			return nil, nil, bad
		}
		break
	}
	if tail := strings.TrimSpace(rest[1:]); tail != "" && tail != ";" {
		return nil, nil, bad
	}
	if len(names) != len(vals) {
		return nil, nil, fmt.Errorf("INSERT statement has %d columns and %d values", len(names), len(vals))
	}
	return names, vals, nil
}

// sqlTypes is llama-bench's get_sql_field_type.
var sqlTypes = [...]string{kindString: "TEXT", kindBool: "INTEGER", kindInt: "INTEGER", kindFloat: "REAL"}

// writeSQL writes recs as llama-bench's sql printer does. Values are quoted
// with '; unlike llama-bench, a ' inside a value is doubled. Extra fields of
// any record become extra TEXT columns.
func writeSQL(w *bufio.Writer, recs []Record) {
	extra := extraKeys(recs...)
	names := append(FieldNames(), extra...)
	w.WriteString("CREATE TABLE IF NOT EXISTS llama_bench (\n")
	for i, name := range names {
		typ := "TEXT"
		if j, ok := schemaIndex[name]; ok {
			typ = sqlTypes[schema[j].kind]
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(w, "  %s %s%s\n", name, typ, sep)
	}
	w.WriteString(");\n\n")
	for i := range recs {
		fmt.Fprintf(w, "INSERT INTO llama_bench (%s) VALUES (", strings.Join(names, ", "))
		for j, v := range append(values(&recs[i]), extraValues(&recs[i], extra)...) {
			if j > 0 {
				w.WriteString(", ")
			}
			w.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
		}
		w.WriteString(");\n")
	}
}
