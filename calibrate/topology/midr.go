package topology

import "fmt"

// ImplementerARM is the MIDR_EL1 implementer code of Arm Ltd ('A').
const ImplementerARM = 0x41

// armParts maps Arm Ltd MIDR_EL1 part numbers to core names. The values are
// those of ARM_CPU_PART_* in Linux arch/arm64/include/asm/cputype.h, which
// quotes the "MIDR_EL1 bit descriptions" table of each core's TRM.
var armParts = map[uint32]string{
	0xd03: "Cortex-A53",
	0xd04: "Cortex-A35",
	0xd05: "Cortex-A55",
	0xd06: "Cortex-A65",
	0xd07: "Cortex-A57",
	0xd08: "Cortex-A72",
	0xd09: "Cortex-A73",
	0xd0a: "Cortex-A75",
	0xd0b: "Cortex-A76",
	0xd0c: "Neoverse-N1",
	0xd0d: "Cortex-A77",
	0xd40: "Neoverse-V1",
	0xd41: "Cortex-A78",
	0xd44: "Cortex-X1",
	0xd46: "Cortex-A510",
	0xd47: "Cortex-A710",
	0xd48: "Cortex-X2",
	0xd49: "Neoverse-N2",
	0xd4b: "Cortex-A78C",
	0xd4c: "Cortex-X1C",
	0xd4d: "Cortex-A715",
	0xd4e: "Cortex-X3",
	0xd4f: "Neoverse-V2",
	0xd80: "Cortex-A520",
	0xd81: "Cortex-A720",
	0xd82: "Cortex-X4",
	0xd84: "Neoverse-V3",
	0xd85: "Cortex-X925",
	0xd87: "Cortex-A725",
}

// MIDR is a decoded MIDR_EL1 main ID register.
type MIDR struct {
	Implementer uint32 // bits 31:24, 0x41 for Arm Ltd
	Variant     uint32 // bits 23:20, the "r" of rNpM
	Part        uint32 // bits 15:4, the primary part number
	Revision    uint32 // bits 3:0, the "p" of rNpM
}

// DecodeMIDR splits a MIDR_EL1 value into its fields.
func DecodeMIDR(v uint64) MIDR {
	return MIDR{
		Implementer: uint32(v>>24) & 0xff,
		Variant:     uint32(v>>20) & 0xf,
		Part:        uint32(v>>4) & 0xfff,
		Revision:    uint32(v) & 0xf,
	}
}

// CoreName names the core, such as "Cortex-A76". Parts this package does
// not know get a stable placeholder naming implementer and part, such as
// "arm64 0x51:0x805", so that grouping by core type still works.
func (m MIDR) CoreName() string {
	if m.Implementer == ImplementerARM {
		if name, ok := armParts[m.Part]; ok {
			return name
		}
	}
	return fmt.Sprintf("arm64 0x%02x:0x%03x", m.Implementer, m.Part)
}
