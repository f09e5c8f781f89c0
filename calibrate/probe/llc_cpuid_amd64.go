package probe

// cpuid executes the CPUID instruction (cpuid_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// llcCPUID returns the size of the largest cache at the highest level the
// processor describes in its deterministic cache parameters: CPUID leaf 4
// on Intel, 0x8000001D on AMD (AMD64 Architecture Programmer's Manual
// vol. 3, "CPUID Fn8000_001D Cache Topology Information"; Intel SDM vol.
// 2A, CPUID leaf 04H). Each subleaf is one cache: type in EAX[4:0] (0: no
// more), level in EAX[7:5], ways-1 in EBX[31:22], partitions-1 in
// EBX[21:12], line size-1 in EBX[11:0] and sets-1 in ECX. A virtual
// machine passes the host's caches through. Where that leaf is empty (a
// hypervisor may mask it), AMD's leaf 0x80000006 gives the L3 in
// EDX[31:18] in 512 KiB units, else the L2 in ECX[31:16] KiB. 0 when the
// processor describes none.
func llcCPUID() int64 {
	if n := deterministicCaches(); n > 0 {
		return n
	}
	if maxExt, _, _, _ := cpuid(0x80000000, 0); maxExt >= 0x80000006 && isAMD() {
		_, _, c, d := cpuid(0x80000006, 0)
		if l3 := int64(d >> 18); l3 > 0 {
			return l3 * 512 << 10
		}
		return int64(c>>16) << 10
	}
	return 0
}

// isAMD reports whether the processor's vendor is "AuthenticAMD".
func isAMD() bool {
	_, b, c, d := cpuid(0, 0)
	return b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163
}

// deterministicCaches is the largest cache at the highest level of leaf 4
// or 0x8000001D, 0 when they list none.
func deterministicCaches() int64 {
	maxStd, _, _, _ := cpuid(0, 0)
	amd := isAMD()
	leaf := uint32(4)
	if amd {
		maxExt, _, _, _ := cpuid(0x80000000, 0)
		_, _, ecx, _ := cpuid(0x80000001, 0)
		if maxExt < 0x8000001D || ecx&(1<<22) == 0 { // TopologyExtensions
			return 0
		}
		leaf = 0x8000001D
	} else if maxStd < 4 {
		return 0
	}
	bestLevel, best := 0, int64(0)
	for sub := uint32(0); sub < 16; sub++ {
		a, b, c, _ := cpuid(leaf, sub)
		typ, level := a&0x1f, int(a>>5&7)
		if typ == 0 {
			break
		}
		if typ == 2 { // instruction cache
			continue
		}
		size := int64(b>>22+1) * int64(b>>12&0x3ff+1) * int64(b&0xfff+1) * int64(c+1)
		if level > bestLevel || level == bestLevel && size > best {
			bestLevel, best = level, size
		}
	}
	return best
}
