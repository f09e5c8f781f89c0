package topology

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Cache is one level of a CPU's cache hierarchy.
type Cache struct {
	SizeKiB    int   // size of the cache; 0 when the kernel does not say
	SharedCPUs []int // CPUs sharing this cache, this one included (shared_cpu_list)
}

// CPU is what sysfs and procfs say about one online logical CPU.
type CPU struct {
	ID int
	// CoreType names the microarchitecture: "Cortex-A76" from the MIDR on
	// arm64, "P-core" or "E-core" on Intel hybrid parts, else the cpuinfo
	// model name, else "".
	CoreType string
	// CapacityUnits is cpu_capacity, the scheduler's relative performance
	// (1024 for the fastest CPU); 0 when absent (x86, VMs).
	CapacityUnits int
	// MaxFreqKHz is cpufreq cpuinfo_max_freq; 0 without cpufreq.
	MaxFreqKHz int
	// ClusterID is topology/cluster_id, -1 when absent.
	ClusterID int
	// PackageID is topology/physical_package_id, -1 when absent.
	PackageID int
	// CoreID is topology/core_id, -1 when absent.
	CoreID int
	// ThreadSiblings are the SMT threads of this CPU's core, itself
	// included (core_cpus_list or thread_siblings_list).
	ThreadSiblings []int
	L1D, L2, L3    Cache
	// Policy is the cpufreq policy directory, such as "policy4"; "" without
	// cpufreq.
	Policy string
	// Governor is the cpufreq scaling_governor; "" without cpufreq.
	Governor string
}

// cpufreqPolicy is one sys/devices/system/cpu/cpufreq/policyN directory.
type cpufreqPolicy struct {
	name       string
	maxFreqKHz int
	governor   string
}

// readPolicies maps each CPU to its cpufreq policy. A system without
// cpufreq gives an empty map.
func readPolicies(fsys fs.FS) (map[int]cpufreqPolicy, error) {
	dirs, err := fs.Glob(fsys, cpufreqDir+"/policy*")
	if err != nil {
		return nil, err
	}
	byCPU := map[int]cpufreqPolicy{}
	for _, dir := range dirs {
		cpus, err := readCPUFields(fsys, dir+"/related_cpus")
		if err != nil {
			return nil, err
		}
		if cpus == nil {
			if cpus, err = readCPUFields(fsys, dir+"/affected_cpus"); err != nil {
				return nil, err
			}
		}
		p := cpufreqPolicy{name: path.Base(dir)}
		if p.maxFreqKHz, err = readInt(fsys, dir+"/cpuinfo_max_freq", 0); err != nil {
			return nil, err
		}
		if p.governor, _, err = readText(fsys, dir+"/scaling_governor"); err != nil {
			return nil, err
		}
		for _, id := range cpus {
			byCPU[id] = p
		}
	}
	return byCPU, nil
}

// readHybrid maps CPUs of an Intel hybrid part to "P-core" or "E-core"
// from the perf PMU device lists. Other machines give an empty map.
func readHybrid(fsys fs.FS) (map[int]string, error) {
	kinds := map[int]string{}
	for _, src := range []struct{ file, kind string }{{pCoreList, "P-core"}, {eCoreList, "E-core"}} {
		cpus, err := readCPUList(fsys, src.file)
		if err != nil {
			return nil, err
		}
		for _, id := range cpus {
			kinds[id] = src.kind
		}
	}
	return kinds, nil
}

// machine holds the whole-machine tables readCPU consults.
type machine struct {
	info     map[int]cpuinfoRecord
	policies map[int]cpufreqPolicy
	hybrid   map[int]string
}

// readCPU reads sys/devices/system/cpu/cpuN and the matching tables.
func readCPU(fsys fs.FS, id int, m machine) (CPU, error) {
	dir := cpuDir + "/cpu" + strconv.Itoa(id)
	if _, err := fs.Stat(fsys, dir); err != nil {
		return CPU{}, fmt.Errorf("cpu%d is listed online but %s is missing: %w", id, dir, err)
	}
	c := CPU{ID: id}
	var err error
	if c.CoreType, err = coreType(fsys, dir, id, m); err != nil {
		return CPU{}, err
	}
	if c.CapacityUnits, err = readInt(fsys, dir+"/cpu_capacity", 0); err != nil {
		return CPU{}, err
	}
	for _, f := range []struct {
		dst  *int
		name string
	}{
		{&c.ClusterID, "cluster_id"},
		{&c.PackageID, "physical_package_id"},
		{&c.CoreID, "core_id"},
	} {
		if *f.dst, err = readInt(fsys, dir+"/topology/"+f.name, -1); err != nil {
			return CPU{}, err
		}
	}
	if c.ThreadSiblings, err = readCPUList(fsys, dir+"/topology/core_cpus_list"); err != nil {
		return CPU{}, err
	}
	if c.ThreadSiblings == nil {
		if c.ThreadSiblings, err = readCPUList(fsys, dir+"/topology/thread_siblings_list"); err != nil {
			return CPU{}, err
		}
	}
	if len(c.ThreadSiblings) == 0 {
		c.ThreadSiblings = []int{id}
	}
	if err := readCaches(fsys, dir, &c); err != nil {
		return CPU{}, err
	}
	if p, ok := m.policies[id]; ok {
		c.Policy, c.MaxFreqKHz, c.Governor = p.name, p.maxFreqKHz, p.governor
		return c, nil
	}
	// Without policy directories (very old kernels, or a capture that kept
	// only the per-CPU cpufreq links) read cpuN/cpufreq directly.
	if c.MaxFreqKHz, err = readInt(fsys, dir+"/cpufreq/cpuinfo_max_freq", 0); err != nil {
		return CPU{}, err
	}
	if c.Governor, _, err = readText(fsys, dir+"/cpufreq/scaling_governor"); err != nil {
		return CPU{}, err
	}
	return c, nil
}

// coreType names the CPU's microarchitecture; see CPU.CoreType.
func coreType(fsys fs.FS, dir string, id int, m machine) (string, error) {
	if kind, ok := m.hybrid[id]; ok {
		return kind, nil
	}
	name := dir + "/regs/identification/midr_el1"
	text, ok, err := readText(fsys, name)
	if err != nil {
		return "", err
	}
	if ok {
		v, err := strconv.ParseUint(text, 0, 64)
		if err != nil {
			return "", fmt.Errorf("%s: %q is not a hexadecimal register value", name, text)
		}
		return DecodeMIDR(v).CoreName(), nil
	}
	rec := m.info[id]
	midr, ok, err := rec.midr()
	if err != nil {
		return "", fmt.Errorf("processor %d: %w", id, err)
	}
	if ok {
		return midr.CoreName(), nil
	}
	return strings.Join(strings.Fields(rec["model name"]), " "), nil
}

// readCaches fills L1D, L2 and L3 from cpuN/cache/index*.
func readCaches(fsys fs.FS, dir string, c *CPU) error {
	indexes, err := fs.Glob(fsys, dir+"/cache/index*")
	if err != nil {
		return err
	}
	for _, idx := range indexes {
		level, err := readInt(fsys, idx+"/level", 0)
		if err != nil {
			return err
		}
		kind, _, err := readText(fsys, idx+"/type")
		if err != nil {
			return err
		}
		var dst *Cache
		switch {
		case level == 1 && kind == "Data":
			dst = &c.L1D
		case level == 2 && kind != "Instruction":
			dst = &c.L2
		case level == 3 && kind != "Instruction":
			dst = &c.L3
		default:
			continue
		}
		size, ok, err := readText(fsys, idx+"/size")
		if err != nil {
			return err
		}
		if ok {
			if dst.SizeKiB, err = parseSizeKiB(size); err != nil {
				return fmt.Errorf("%s/size: %w", idx, err)
			}
		}
		if dst.SharedCPUs, err = readCPUList(fsys, idx+"/shared_cpu_list"); err != nil {
			return err
		}
		if len(dst.SharedCPUs) == 0 {
			dst.SharedCPUs = []int{c.ID}
		}
	}
	return nil
}
