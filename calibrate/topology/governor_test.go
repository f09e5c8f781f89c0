package topology

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestGovernors(t *testing.T) {
	tests := []struct {
		fixture string
		want    map[string]string
	}{
		{"rk3588", map[string]string{
			"cpufreq/policy0": "schedutil", "cpufreq/policy4": "schedutil", "cpufreq/policy6": "schedutil",
			"devfreq/dmc": "dmc_ondemand", // GPU and NPU devfreq left out
		}},
		{"x86-vm", map[string]string{}},
		{"cix-p1", map[string]string{
			"cpufreq/policy0": "schedutil", "cpufreq/policy4": "schedutil", "cpufreq/policy8": "schedutil",
		}},
	}
	for _, tt := range tests {
		got, err := Governors(filepath.Join("testdata", tt.fixture))
		if err != nil {
			t.Fatalf("%s: %v", tt.fixture, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Governors = %v, want %v", tt.fixture, got, tt.want)
		}
	}
	intel, err := Governors(filepath.Join("testdata", "i7-1260p"))
	if err != nil || len(intel) != 16 || intel["cpufreq/policy15"] != "powersave" {
		t.Errorf("i7-1260p: %v, %v", intel, err)
	}
}

func TestNonPerformance(t *testing.T) {
	tests := []struct {
		name string
		govs map[string]string
		want []string // substrings, one per warning in order
	}{
		{"all performance", map[string]string{"cpufreq/policy0": "performance", "devfreq/dmc": "performance"}, nil},
		{"none", map[string]string{}, nil},
		{"rk3588 defaults", map[string]string{
			"cpufreq/policy0": "schedutil", "cpufreq/policy4": "schedutil", "cpufreq/policy6": "performance",
			"devfreq/dmc": "dmc_ondemand",
		}, []string{
			`cpufreq policies 0,4: governor is "schedutil"`,
			`memory controller dmc: devfreq governor is "dmc_ondemand"`,
		}},
		{"run of policies", map[string]string{
			"cpufreq/policy0": "powersave", "cpufreq/policy1": "powersave", "cpufreq/policy2": "powersave", "cpufreq/policy3": "userspace",
		}, []string{
			`cpufreq policies 0-2: governor is "powersave"`,
			`cpufreq policy 3: governor is "userspace"`,
		}},
	}
	for _, tt := range tests {
		got := NonPerformance(tt.govs)
		if len(got) != len(tt.want) {
			t.Errorf("%s: NonPerformance = %q, want %d warnings", tt.name, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) || !strings.Contains(got[i], "sudo tee /sys/") {
				t.Errorf("%s: warning %d = %q, want it to contain %q and a fix", tt.name, i, got[i], w)
			}
		}
	}
	run := NonPerformance(map[string]string{"cpufreq/policy0": "powersave", "cpufreq/policy1": "powersave", "cpufreq/policy2": "powersave"})
	if !strings.Contains(run[0], "policy{0..2}/scaling_governor") {
		t.Errorf("fix command = %q", run[0])
	}
}
