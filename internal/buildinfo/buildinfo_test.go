package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: ""}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "1a2b3c"}, {Key: "vcs.time", Value: "2026-08-17T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}}}
	want := "blsim (devel), revision 1a2b3c (2026-08-17T10:00:00Z) with local changes, go1.26.0, linux/arm64\n"
	if got := version(bi); got != want {
		t.Errorf("version\n %q\nwant\n %q", got, want)
	}
	bi = &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"}}
	if got := version(bi); got != "blsim v1.2.0, go1.26.0\n" {
		t.Errorf("a release without VCS information: %q", got)
	}
	if got := Version(); !strings.HasPrefix(got, "blsim ") || !strings.Contains(got, runtime.Version()) {
		t.Errorf("this test binary's version: %q", got)
	}
}
