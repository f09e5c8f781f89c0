package lm

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Converged reports whether s is one of the convergence statuses.
func (s Status) Converged() bool {
	return s == GradientConverged || s == StepConverged || s == FunctionConverged
}
