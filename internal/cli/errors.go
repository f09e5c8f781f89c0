package cli

import (
	"regexp"
)

// enoent is how Go's os package words a missing file.
var enoent = regexp.MustCompile(`\b(?:open|stat|lstat) ([^:\n]+): no such file or directory`)

// Line is err as the one line blsim prints: a missing file reads
// "PATH: no such file" whichever reader met it.
func Line(err error) string {
	return enoent.ReplaceAllString(err.Error(), "$1: no such file")
}
