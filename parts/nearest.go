package parts

import (
	"fmt"
	"sort"
	"strings"
)

// nearestText names the known parts nearest to s, for an error: "nearest:
// cortex-a76, cortex-a78; blsim parts lists all 40 cores", total the parts
// of the kind. known may hold aliases (alias maps each to its part's name):
// an alias near s counts as its part, which is named once, by its own name.
func nearestText(s string, known []string, alias map[string]string, what string, total int) string {
	near := nearest(s, known, alias, 5)
	all := fmt.Sprintf("blsim parts lists all %d %s", total, what)
	if len(near) == 0 {
		return all
	}
	return "nearest: " + strings.Join(near, ", ") + "; " + all
}

// nearest returns up to n of known closest to s by edit distance (a name
// that contains s, or that s contains, counts as close), nearest first,
// leaving out any farther than half of the longer name; an alias (a key of
// alias) stands for its part, at the nearer of the two.
func nearest(s string, known []string, alias map[string]string, n int) []string {
	type cand struct {
		name string
		d, p int // distance, and the prefix shared with s, of its nearest name
	}
	var cs []cand
	at := map[string]int{} // a part's index in cs
	for _, k := range known {
		d := editDistance(s, k)
		if s != "" && (strings.Contains(k, s) || strings.Contains(s, k)) {
			d = min(d, 1)
		}
		if d > max(len(s), len(k))/2 {
			continue
		}
		name := k
		if a, ok := alias[k]; ok {
			name = a
		}
		c := cand{name, d, commonPrefix(s, k)}
		if i, ok := at[name]; ok {
			if c.d < cs[i].d || (c.d == cs[i].d && c.p > cs[i].p) {
				cs[i] = c
			}
			continue
		}
		at[name] = len(cs)
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		if cs[i].p != cs[j].p {
			return cs[i].p > cs[j].p
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
