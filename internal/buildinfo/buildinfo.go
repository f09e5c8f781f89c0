// Package buildinfo says which blsim this is, from the build information
// Go embeds in a binary: the module version and, for a binary built from a
// git checkout, the revision it was built from.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Version is what blsim --version prints, one line: the module version
// and, when the binary was built from a git checkout, the VCS revision,
// its time and whether the tree had changes, then the Go version and the
// target, e.g. "blsim (devel), revision 1a2b3c (2026-08-17T10:00:00Z) with
// local changes, go1.26.0, linux/arm64\n".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "blsim (no build information)"
	}
	return version(bi)
}

func version(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"blsim " + v}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		r := "revision " + rev
		if t := settings["vcs.time"]; t != "" {
			r += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			r += " with local changes"
		}
		parts = append(parts, r)
	}
	parts = append(parts, bi.GoVersion)
	if o, a := settings["GOOS"], settings["GOARCH"]; o != "" && a != "" {
		parts = append(parts, o+"/"+a)
	}
	return fmt.Sprintf("%s\n", strings.Join(parts, ", "))
}
