package measure

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInterferenceSource: who took a run's CPU (the hypervisor when its
// steal was more of the CPU's time than other processes'), on the run's
// worst CPU, and how the messages name a set of runs' sources.
func TestInterferenceSource(t *testing.T) {
	for _, c := range []struct {
		name string
		in   Interference
		cpu  int
		want Source
	}{
		{"a busy loop", Interference{WallS: 1, Used: []int{0, 1}, CPUs: []CPULoad{{CPU: 0, OtherPct: 40, StealPct: 2}, {CPU: 1, StealPct: 10}}}, 0, Others},
		{"steal on the worse CPU", Interference{WallS: 1, Used: []int{0, 1}, CPUs: []CPULoad{{CPU: 0, OtherPct: 3, StealPct: 30}, {CPU: 1, OtherPct: 20}}}, 0, Hypervisor},
		{"steal on a CPU the run did not use", Interference{WallS: 1, Used: []int{1}, CPUs: []CPULoad{{CPU: 0, StealPct: 60}, {CPU: 1, OtherPct: 8, StealPct: 2}}}, 1, Others},
		{"as much of each", Interference{WallS: 1, Used: []int{0}, CPUs: []CPULoad{{CPU: 0, OtherPct: 10, StealPct: 10}}}, 0, Others},
	} {
		cpu, _ := c.in.Worst()
		if got := c.in.WorstSource(); cpu != c.cpu || got != c.want {
			t.Errorf("%s: worst cpu%d by %v, want cpu%d by %v", c.name, cpu, got, c.cpu, c.want)
		}
	}
	for _, c := range []struct {
		srcs []Source
		want string
	}{
		{nil, "other processes"},
		{[]Source{Others, Others}, "other processes"},
		{[]Source{Hypervisor}, "the hypervisor (steal)"},
		{[]Source{Hypervisor, Others, Hypervisor}, "other processes and the hypervisor (steal)"},
	} {
		if got := Who(c.srcs); got != c.want {
			t.Errorf("Who(%v) = %q, want %q", c.srcs, got, c.want)
		}
	}
	for _, s := range []Source{Others, Hypervisor} {
		b, err := json.Marshal(s)
		var back Source
		if err != nil || json.Unmarshal(b, &back) != nil || back != s {
			t.Errorf("%v: %s, %v, back %v", s, b, err, back)
		}
	}
	var s Source
	if err := json.Unmarshal([]byte(`"neighbour"`), &s); err == nil || !strings.Contains(err.Error(), `"neighbour"`) {
		t.Errorf("an unknown source: %v, want an error naming it", err)
	}
}
