package topology

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Governor map keys are "cpufreq/policyN" for CPU frequency policies and
// "devfreq/NAME" for memory-controller devfreq devices.
const (
	cpufreqKey = "cpufreq/"
	devfreqKey = "devfreq/"
)

// memoryDevfreq reports whether a /sys/class/devfreq entry is a DRAM
// controller: "dmc" on Rockchip (RK3588's vendor kernel) and Exynos,
// "ddr"/"dram" on others. GPU and NPU devfreq devices are left out.
func memoryDevfreq(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "dmc") || strings.Contains(n, "ddr") || strings.Contains(n, "dram")
}

// Governors reads, under root, the scaling_governor of every cpufreq
// policy and the governor of every memory-controller devfreq device, keyed
// "cpufreq/policy4" and "devfreq/dmc". A machine without either (a VM)
// gives an empty map.
func Governors(root string) (map[string]string, error) {
	g, err := governorsFS(os.DirFS(root))
	if err != nil {
		return nil, fmt.Errorf("topology: governors under %s: %w", root, err)
	}
	return g, nil
}

func governorsFS(fsys fs.FS) (map[string]string, error) {
	govs := map[string]string{}
	policies, err := fs.Glob(fsys, cpufreqDir+"/policy*")
	if err != nil {
		return nil, err
	}
	for _, dir := range policies {
		g, ok, err := readText(fsys, dir+"/scaling_governor")
		if err != nil {
			return nil, err
		}
		if ok {
			govs[cpufreqKey+path.Base(dir)] = g
		}
	}
	devices, err := fs.ReadDir(fsys, devfreqDir)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("read %s: %w", devfreqDir, err)
	}
	for _, d := range devices {
		if !memoryDevfreq(d.Name()) {
			continue
		}
		g, ok, err := readText(fsys, devfreqDir+"/"+d.Name()+"/governor")
		if err != nil {
			return nil, err
		}
		if ok {
			govs[devfreqKey+d.Name()] = g
		}
	}
	return govs, nil
}

// NonPerformance returns one human-readable warning, with the command that
// fixes it, for each governor in govs (as returned by Governors) that is
// not "performance": cpufreq policies sharing a governor are reported
// together, devfreq devices one by one. The result is sorted and empty
// when every governor is "performance".
func NonPerformance(govs map[string]string) []string {
	policiesBy := map[string][]int{} // governor -> policy numbers
	var warnings []string
	for key, g := range govs {
		if g == "performance" {
			continue
		}
		switch {
		case strings.HasPrefix(key, cpufreqKey+"policy"):
			n, err := strconv.Atoi(strings.TrimPrefix(key, cpufreqKey+"policy"))
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s governor is %q, not \"performance\"", key, g))
				continue
			}
			policiesBy[g] = append(policiesBy[g], n)
		case strings.HasPrefix(key, devfreqKey):
			name := strings.TrimPrefix(key, devfreqKey)
			warnings = append(warnings, fmt.Sprintf(
				"memory controller %s: devfreq governor is %q, not \"performance\"; DRAM clocks down when idle, so bandwidth and latency vary; fix: echo performance | sudo tee /sys/class/devfreq/%s/governor",
				name, g, name))
		default:
			warnings = append(warnings, fmt.Sprintf("%s governor is %q, not \"performance\"", key, g))
		}
	}
	for g, ns := range policiesBy {
		slices.Sort(ns)
		glob := bashBraces(ns)
		word := "policy"
		if len(ns) > 1 {
			word = "policies"
		}
		warnings = append(warnings, fmt.Sprintf(
			"cpufreq %s %s: governor is %q, not \"performance\"; clocks follow load, so timings drift; fix: echo performance | sudo tee /sys/devices/system/cpu/cpufreq/policy%s/scaling_governor",
			word, FormatCPUList(ns), g, glob))
	}
	slices.Sort(warnings)
	return warnings
}

// bashBraces writes sorted policy numbers as a shell brace expansion:
// "4", "{0..15}" for a run, "{0,4,6}" otherwise.
func bashBraces(ns []int) string {
	switch {
	case len(ns) == 1:
		return strconv.Itoa(ns[0])
	case len(ns) > 2 && ns[len(ns)-1]-ns[0] == len(ns)-1:
		return fmt.Sprintf("{%d..%d}", ns[0], ns[len(ns)-1])
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return "{" + strings.Join(parts, ",") + "}"
}
