package parts

import (
	"fmt"
	"strings"
)

// MemorySchema is the schema tag of a memory part.
const MemorySchema = "blsim/memory/v1"

// A Memory is a DRAM type: the bus width and transfer rate a spec sheet
// gives make its peak; the share of the peak that all cores together
// sustain (a STREAM-like read figure) makes its sustained bandwidth.
type Memory struct {
	Schema  string   `yaml:"schema"`
	Name    string   `yaml:"name"`
	Title   string   `yaml:"title"`
	Aliases []string `yaml:"aliases,omitempty"`
	// ChannelBits is the width of one channel in bits (16 for LPDDR4x and
	// LPDDR5, 64 for a DDR4 or DDR5 DIMM's two 32-bit subchannels).
	ChannelBits int `yaml:"channel_bits"`
	// MTs spans the JEDEC transfer rates of the type, MT/s.
	MTs [2]float64 `yaml:"mt_s"`
	// SustainedShare is the share of the peak that a chip's cores sustain
	// together, reading, when no figure for its controller family is
	// known.
	SustainedShare float64 `yaml:"sustained_share"`
	// Controllers gives the measured share by memory-controller family
	// (rockchip, apple, ...), where one is known.
	Controllers map[string]float64 `yaml:"controllers,omitempty"`

	notes map[string]string
}

// Note is the source of the value at path (sustained_share,
// controllers.rockchip), "" when the file gives none.
func (m *Memory) Note(path string) string { return noteOf(m.notes, path) }

// PeakGBs is the peak of a bus of busBits bits at mts MT/s, in GB/s.
func PeakGBs(busBits int, mts float64) float64 { return float64(busBits) / 8 * mts / 1000 }

// Share is the sustained share for controller (the type's default when
// controller is "" ), with where it comes from; an unknown controller is
// an error naming the known ones.
func (m *Memory) Share(controller string) (float64, string, error) {
	if controller == "" {
		return m.SustainedShare, "sustained_share", nil
	}
	if s, ok := m.Controllers[normalise(controller)]; ok {
		return s, "controllers." + normalise(controller), nil
	}
	known := sortedKeys(m.Controllers)
	if len(known) == 0 {
		return 0, "", fmt.Errorf("no controller family is known for %s: leave controller out (the type's share, %g)", m.Name, m.SustainedShare)
	}
	return 0, "", fmt.Errorf("unknown controller %q for %s (known: %s; or leave it out for the type's share, %g)", controller, m.Name, strings.Join(known, ", "), m.SustainedShare)
}

// CheckBus refuses a bus that is not a whole number of the type's
// channels, or a rate so far outside the type's JEDEC span (by more than
// half again: vendor speed bins run past JEDEC's) that the file most
// likely names the wrong type; the reason names the types whose span
// holds the rate.
func (m *Memory) CheckBus(busBits int, mts float64) error {
	if busBits%m.ChannelBits != 0 {
		return fmt.Errorf("%d bits is not a whole number of %s's %d-bit channels (the whole bus's width in bits: a multiple of %d, e.g. %d or %d)",
			busBits, m.Name, m.ChannelBits, m.ChannelBits, 2*m.ChannelBits, 4*m.ChannelBits)
	}
	if mts > m.MTs[1]*1.5 || mts < m.MTs[0]/1.5 {
		var fit []string
		for _, n := range Memories() {
			if o := lib().memories[n]; mts >= o.MTs[0] && mts <= o.MTs[1] {
				fit = append(fit, n)
			}
		}
		also := ""
		switch {
		case len(fit) == 1:
			also = "; " + fit[0] + " runs at that rate"
		case len(fit) > 1:
			also = "; " + strings.Join(fit, ", ") + " run at that rate"
		}
		return fmt.Errorf("%g MT/s is far outside %s's %g-%g MT/s%s", mts, m.Name, m.MTs[0], m.MTs[1], also)
	}
	return nil
}

func (m *Memory) validate(file string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("parts: %s: %s", file, fmt.Sprintf(format, a...))
	}
	switch {
	case m.Schema != MemorySchema:
		return bad("schema %q is not %q", m.Schema, MemorySchema)
	case m.Name == "" || m.Name+".yaml" != file[strings.LastIndexByte(file, '/')+1:]:
		return bad("name %q: want the file's name", m.Name)
	case m.ChannelBits <= 0 || m.MTs[0] <= 0 || m.MTs[1] < m.MTs[0]:
		return bad("channel_bits and mt_s [low, high] must be positive")
	case m.SustainedShare <= 0 || m.SustainedShare > 1:
		return bad("sustained_share %g is outside (0, 1]", m.SustainedShare)
	}
	for k, v := range m.Controllers {
		if v <= 0 || v > 1 {
			return bad("controllers.%s %g is outside (0, 1]", k, v)
		}
	}
	return nil
}

// Memories lists the memory parts' names, sorted.
func Memories() []string { return sortedKeys(lib().memories) }

// LookupMemory returns the memory part named name (or an alias); an
// unknown name's error names the nearest known.
func LookupMemory(name string) (*Memory, error) {
	l := lib()
	key := normalise(name)
	if m, ok := l.memories[key]; ok {
		return m, nil
	}
	if n, ok := l.memAlias[key]; ok {
		return l.memories[n], nil
	}
	names := sortedKeys(l.memories)
	for a := range l.memAlias {
		names = append(names, a)
	}
	return nil, fmt.Errorf("unknown memory type %q (%s)", name, nearestText(key, names, l.memAlias, "memory types", len(l.memories)))
}
