package main

import (
	"fmt"

	"github.com/blsim/blsim/internal/atomicfile"
)

// checkOutput is atomicfile.CheckOutput with the flag and the path in its
// error: "-o m.jsonl: is also an input; name another file".
func checkOutput(flag, path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.CheckOutput(path, inputs...); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}
