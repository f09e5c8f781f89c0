package plots

import (
	"fmt"
	"strings"
)

// notTaken lists, for each kind of figure, the request flags it does not
// honour (by their blsim flag names).
var notTaken = map[string][]string{
	"split":    {"frac", "layers", "x-param", "y-param", "log", "placement"},
	"heatmap":  {"frac", "layers", "log", "placement"},
	"timeline": {"x-param", "y-param", "log", "measurements", "stat", "placement"},
	"roofline": {"layers", "x-param", "y-param", "log", "measurements", "stat", "placement"},
	"threads":  {"engines", "threads", "engine-threads", "big-threads", "little-threads", "split", "frac", "draws", "test", "layers", "x-param", "y-param", "log", "measurements", "stat"},
	"parity":   {"engines", "threads", "engine-threads", "big-threads", "little-threads", "split", "frac", "poll", "prompt", "ubatch", "gen", "test", "depth", "layers", "x-param", "y-param", "draws", "placement"},
}

// whyNotTaken says why a figure ignores a flag, where the reason is not
// "it does not use it".
var whyNotTaken = map[string]string{
	"frac": "it draws every share (the best is marked)", "engines": "it draws each measurement's own plan",
	"threads": "it draws each measurement's own plan", "engine-threads": "it draws each measurement's own plan", "big-threads": "it draws each measurement's own plan",
	"little-threads": "it draws each measurement's own plan", "split": "it draws each measurement's own plan",
	"poll": "it draws each measurement's own plan", "prompt": "it draws each measurement's own run",
	"ubatch": "it draws each measurement's own run", "gen": "it draws each measurement's own run",
	"test": "it draws each measurement's own run", "depth": "it draws each measurement's own run",
	"draws": "it has no intervals", "placement": "it places only the threads plot's unpinned pools",
}

// CheckFlags refuses the first flag given (given reports whether a flag,
// by name, was set) that a kind of figure would not honour, with a
// one-line reason; nil when it honours every given flag.
func CheckFlags(kind string, given func(flag string) bool) error {
	for _, f := range notTaken[kind] {
		if !given(f) {
			continue
		}
		w := whyNotTaken[f]
		if w == "" {
			w = "it does not use it"
		}
		if kind == "threads" && (f == "engines" || f == "split" || f == "frac" || f == "test" || strings.HasSuffix(f, "threads")) {
			w = "it tries every thread count over every cluster, for pp and tg both"
		}
		return fmt.Errorf("--%s: plot %s does not take it: %s", f, kind, w)
	}
	return nil
}
