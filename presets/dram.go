package presets

import (
	"fmt"
	"strconv"

	"github.com/blsim/blsim/internal/yamlx"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
	"go.yaml.in/yaml/v3"
)

// SoCWithDRAM is the SoC preset name with another memory of the same
// kind of board: spec (TYPE-MTSxBITS, as `blsim socs new --dram` takes
// it: ddr5-6400x128) replaces the preset's dram type, transfer rate and
// bus width, and everything the memory part derives from them (the peak,
// the sustained share, each cluster's bandwidth cap) follows, as it
// would in a file written with that memory. The preset's memory
// controller is kept. A preset whose dram does not name a memory part
// (its figures written out) cannot take one: an error says so.
func SoCWithDRAM(name, spec string) (*model.SoC, error) {
	d, err := parts.ParseDRAM(spec)
	if err != nil {
		return nil, err
	}
	b, err := SoCData(name)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("preset %s: %v", name, err)
	}
	dram := yamlx.Value(doc.Content[0], "dram")
	if dram == nil || yamlx.Value(dram, "type") == nil {
		return nil, fmt.Errorf("preset %s: its dram names no memory part (type:), so %s cannot replace it", name, spec)
	}
	for _, k := range []string{"peak_gb_s", "sustained_gb_s"} {
		if yamlx.Value(dram, k) != nil {
			return nil, fmt.Errorf("preset %s: its dram writes %s, which %s would not change", name, k, spec)
		}
	}
	setScalar(dram, "type", d.Type)
	setScalar(dram, "bus_bits", strconv.Itoa(d.BusBits))
	setScalar(dram, "mt_s", strconv.FormatFloat(d.MTs, 'f', -1, 64))
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("preset %s: %w", name, err)
	}
	return model.ParseSoC(out, fmt.Sprintf("preset %s with dram %s", name, spec))
}

// setScalar sets key of mapping node m to the scalar v, adding the key
// when m lacks it.
func setScalar(m *yaml.Node, key, v string) {
	if n := yamlx.Value(m, key); n != nil {
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "", v, 0
		return
	}
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Value: v})
}
