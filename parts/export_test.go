package parts

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Check loads the embedded library and returns the first defect of any
// part file, or nil.
func Check() error {
	_, err := load(files)
	return err
}

// Cores lists the core parts' names, sorted.
func Cores() []string { return sortedKeys(lib().cores) }
