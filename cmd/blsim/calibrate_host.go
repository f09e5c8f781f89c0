package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/measure"
)

// clusters finds the engines: discovered, or named by --cluster.
func (o *calibrateOptions) clusters() ([]topology.Cluster, error) {
	t, err := topology.Discover(o.SysRoot)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	if len(o.Clusters) > 0 {
		allowed, err := probe.AllowedCPUs()
		if err != nil {
			return nil, fmt.Errorf("--cluster: %w", err)
		}
		if t, err = topology.Override(t, o.Clusters, allowed); err != nil {
			return nil, err
		}
	}
	if len(t.Clusters) == 0 {
		return nil, fmt.Errorf("found no CPU cluster; name one with --cluster big=CPUS")
	}
	return t.Clusters, nil
}

// hostInfo is this machine as its measurements record it: architecture,
// host name, kernel, CPU model and the cpufreq governors under root.
func hostInfo(root string) *measure.Host {
	h := &measure.Host{Arch: runtime.GOARCH}
	h.Name, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.CPU = cpuModel()
	if g, err := topology.Governors(root); err == nil && len(g) > 0 {
		h.Governors = g
	}
	return h
}

// cpuModel is the CPU's name from /proc/cpuinfo ("model name" on x86,
// "Hardware" on many arm64 boards), or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (strings.TrimSpace(k) == "model name" || strings.TrimSpace(k) == "Hardware") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// kernelsLine says which dot kernels the built-in dispatcher and its
// microbenchmark run (internal/quant), and whether they are the slow
// generic ones: then the dispatcher's runs stay compute-bound and cannot
// load DRAM as ggml's kernels do.
func kernelsLine() (string, bool) {
	impl := quant.Impl()
	if impl == "generic" {
		return "dispatcher kernels: generic Go (no SIMD kernel for this CPU, or BLSIM_KERNELS=generic): about 15x slower than ggml's, so the runs stay compute-bound", true
	}
	return "dispatcher kernels: " + impl, false
}
