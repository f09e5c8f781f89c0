package topology

import "testing"

func TestDecodeMIDR(t *testing.T) {
	tests := []struct {
		midr uint64
		want MIDR
		name string
	}{
		{0x412fd050, MIDR{Implementer: 0x41, Variant: 2, Part: 0xd05, Revision: 0}, "Cortex-A55"},
		{0x414fd0b0, MIDR{Implementer: 0x41, Variant: 4, Part: 0xd0b, Revision: 0}, "Cortex-A76"},
		{0x410fd034, MIDR{Implementer: 0x41, Variant: 0, Part: 0xd03, Revision: 4}, "Cortex-A53"},
		{0x410fd083, MIDR{Implementer: 0x41, Part: 0xd08, Revision: 3}, "Cortex-A72"},
		{0x410fd801, MIDR{Implementer: 0x41, Part: 0xd80, Revision: 1}, "Cortex-A520"},
		{0x410fd810, MIDR{Implementer: 0x41, Part: 0xd81}, "Cortex-A720"},
		{0x410fd821, MIDR{Implementer: 0x41, Part: 0xd82, Revision: 1}, "Cortex-X4"},
		{0x410fd4d0, MIDR{Implementer: 0x41, Part: 0xd4d}, "Cortex-A715"},
		{0x410fd4e0, MIDR{Implementer: 0x41, Part: 0xd4e}, "Cortex-X3"},
		{0x410fd460, MIDR{Implementer: 0x41, Part: 0xd46}, "Cortex-A510"},
		{0x410fd470, MIDR{Implementer: 0x41, Part: 0xd47}, "Cortex-A710"},
		{0x410fd480, MIDR{Implementer: 0x41, Part: 0xd48}, "Cortex-X2"},
		{0x410fd440, MIDR{Implementer: 0x41, Part: 0xd44}, "Cortex-X1"},
		{0x410fd410, MIDR{Implementer: 0x41, Part: 0xd41}, "Cortex-A78"},
		{0x410fd0d0, MIDR{Implementer: 0x41, Part: 0xd0d}, "Cortex-A77"},
		{0x410fd090, MIDR{Implementer: 0x41, Part: 0xd09}, "Cortex-A73"},
		{0x410fd0a0, MIDR{Implementer: 0x41, Part: 0xd0a}, "Cortex-A75"},
		{0x51af8014, MIDR{Implementer: 0x51, Variant: 0xa, Part: 0x801, Revision: 4}, "arm64 0x51:0x801"},
		{0x410fdff0, MIDR{Implementer: 0x41, Part: 0xdff}, "arm64 0x41:0xdff"},
		// Upper 32 bits are RES0 and ignored.
		{0xffffffff_414fd0b0, MIDR{Implementer: 0x41, Variant: 4, Part: 0xd0b}, "Cortex-A76"},
	}
	for _, tt := range tests {
		got := DecodeMIDR(tt.midr)
		if got != tt.want {
			t.Errorf("DecodeMIDR(%#x) = %+v, want %+v", tt.midr, got, tt.want)
		}
		if name := got.CoreName(); name != tt.name {
			t.Errorf("DecodeMIDR(%#x).CoreName() = %q, want %q", tt.midr, name, tt.name)
		}
	}
}
