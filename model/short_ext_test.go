package model_test

import "testing"

// skipShort skips a slow test (an end-to-end run, a sweep over every
// preset, a refit) under go test -short, the fast run; the full
// go test ./... that CI runs keeps it.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow; go test without -short runs it")
	}
}
