package gguf

import "strings"

// Test-only helpers: nothing outside the tests calls them (deadcode).

// TypeByName returns the type named name (any case: q4_K and q4_k).
func TypeByName(name string) (Type, bool) {
	n := strings.ToLower(name)
	for t, ti := range types {
		if ti.name == n {
			return t, true
		}
	}
	return 0, false
}
