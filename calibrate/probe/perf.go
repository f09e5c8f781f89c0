package probe

// PerfEvent names a hardware counter for OpenPerfCounter.
type PerfEvent int

// Hardware counters; CacheMisses counts last-level cache misses, a proxy
// for DRAM traffic.
const (
	PerfCycles PerfEvent = iota
	PerfInstructions
	PerfCacheReferences
	PerfCacheMisses
)

func (e PerfEvent) String() string {
	switch e {
	case PerfCycles:
		return "cycles"
	case PerfInstructions:
		return "instructions"
	case PerfCacheReferences:
		return "cache-references"
	case PerfCacheMisses:
		return "cache-misses"
	}
	return "PerfEvent(?)"
}
