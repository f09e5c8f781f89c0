package presets

import "testing"

func TestLoadAll(t *testing.T) {
	for _, n := range SoCNames() {
		if _, err := SoC(n); err != nil {
			t.Error(err)
		}
	}
	for _, n := range WorkloadNames() {
		if _, err := Workload(n); err != nil {
			t.Error(err)
		}
	}
}
