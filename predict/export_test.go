package predict

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Steps is how many steps Run takes for q: what its Progress counts to.
func (q Request) Steps() int {
	r, err := q.resolve()
	if err != nil {
		return 0
	}
	return r.steps()
}
