package topology

import (
	"fmt"
	"io/fs"
	"os"
)

// Topology is the CPU layout of one machine.
type Topology struct {
	// CPUs are the online CPUs, by ascending ID.
	CPUs []CPU
	// Clusters are ranked fastest first (see the package doc).
	Clusters []Cluster
	// Online and Possible are cpu/online and cpu/possible. Possible
	// falls back to Online when the file is absent.
	Online, Possible []int
}

// Discover reads the CPU topology under root, which is "/" on a live
// machine or the top of a captured tree holding sys/devices/system/cpu/...
// and proc/cpuinfo. It only reads files, so it works on any OS. Files
// that a kernel may lack (cpu_capacity, cpufreq, caches, cluster_id) give
// zero or -1 values; malformed files are errors naming the file.
func Discover(root string) (Topology, error) {
	t, err := discoverFS(os.DirFS(root))
	if err != nil {
		return Topology{}, fmt.Errorf("topology: discover under %s: %w", root, err)
	}
	return t, nil
}

func discoverFS(fsys fs.FS) (Topology, error) {
	var t Topology
	var err error
	if t.Online, err = readCPUList(fsys, cpuDir+"/online"); err != nil {
		return Topology{}, err
	}
	if t.Online == nil {
		return Topology{}, fmt.Errorf("%s/online is missing; is this a Linux sysfs tree?", cpuDir)
	}
	if len(t.Online) == 0 {
		return Topology{}, fmt.Errorf("%s/online lists no CPUs", cpuDir)
	}
	if t.Possible, err = readCPUList(fsys, cpuDir+"/possible"); err != nil {
		return Topology{}, err
	}
	if t.Possible == nil {
		t.Possible = t.Online
	}
	var m machine
	if m.info, err = readCPUInfo(fsys); err != nil {
		return Topology{}, err
	}
	if m.policies, err = readPolicies(fsys); err != nil {
		return Topology{}, err
	}
	if m.hybrid, err = readHybrid(fsys); err != nil {
		return Topology{}, err
	}
	for _, id := range t.Online {
		c, err := readCPU(fsys, id, m)
		if err != nil {
			return Topology{}, err
		}
		t.CPUs = append(t.CPUs, c)
	}
	t.Clusters = groupCPUs(t.CPUs)
	return t, nil
}
