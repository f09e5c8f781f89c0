package model

import "slices"

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Modes are every plan mode: native, the split modes, pool.
func Modes() []Mode { return slices.Clone(modes) }
