// Package topology discovers the CPU clusters of a Linux machine from sysfs
// and procfs, so that blsim can calibrate one cost model per cluster of a
// big.LITTLE (heterogeneous) SoC such as the Rockchip RK3588.
//
// Discover reads a filesystem root ("/" on a live machine, or a captured tree
// under testdata/) and never calls into the kernel, so it builds and runs on
// every platform. The process's affinity mask, which Override checks
// clusters against, comes from the caller (probe.AllowedCPUs on Linux).
//
// # Grouping rule
//
// A machine of several sockets is split by socket first
// (topology/physical_package_id), and each socket's CPUs are grouped as
// below: every socket has its own caches and memory controllers, so a
// pool spread over two runs as two engines, not one (hwloc's capture of a
// two-socket Xeon Silver 4108, in testdata). Package ids that share a
// cache are not sockets and split nothing: arm64 kernels before the
// cpu-map topology took the package id from the MPIDR cluster affinity.
//
// CPUs are grouped into clusters by core type first: the MIDR part number on
// arm64 (for example Cortex-A76), the P-core/E-core lists on Intel hybrid
// parts, or the cpuinfo model name elsewhere. CPUs of one core type stay in
// one cluster even when they sit in different frequency domains or DT
// clusters: the RK3588 has its four Cortex-A76 in two frequency domains
// (cpu4-5 and cpu6-7, each binned to its own maximum, e.g. 2256 and
// 2304 MHz) and in two cpu-map clusters, yet they are one "big" cluster.
// A core type is split only when the kernel's cpu_capacity values differ by
// more than 5% (CIX P1: Cortex-A720 at two capacities), or, when the
// type is a cpuinfo model name, which every core of a hybrid chip shares,
// when its cores differ in L1d size, L2 size or hardware threads (an Intel
// hybrid part whose tree lacks the P-core/E-core lists). When the core type
// is unknown, capacity decides, and when that is absent too, the maximum
// frequency (again with a 5% tolerance). topology/cluster_id is recorded but
// never splits a cluster: on arm64 it follows the DT cpu-map (which, as on
// RK3588, may mirror frequency domains) and on x86 it is the L2 id.
//
// Clusters are ranked by capacity, then maximum frequency, and named "cpu"
// when there is one, "big" and "little" for two, "big", "mid" and "little"
// for three, and "big", "mid1", "mid2", ..., "little" beyond that. On a
// machine of several sockets each socket's clusters are named so, with
// "-s" and the package id after the name ("cpu-s0", "cpu-s1").
//
// Users who know better override the result with --cluster flags; see
// ParseClusterFlag, ParseClusters and Override. Their errors quote the
// offending NAME=CPULIST without naming the flag, which the caller adds.
// CPUModel reads the CPU's name from cpuinfo.
package topology
