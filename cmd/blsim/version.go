package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version is what blsim --version prints: the module version and, when the
// binary was built from a git checkout, the VCS revision, its time and
// whether the tree had changes, from the build information Go embeds.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "blsim (no build information)"
	}
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
