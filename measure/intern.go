package measure

import (
	"encoding/binary"
	"math"

	"github.com/blsim/blsim/model"
)

// interner holds one copy of each string and plan the records of a file
// repeat (their schema, kind, names, unit, status, workload YAML, knobs
// and plan), so that a file of many runs of one grid holds each once.
// It holds at most maxInterned of each; past that, records keep their own.
type interner struct {
	strs  map[string]string
	plans map[string]*model.Plan
	key   []byte
}

const maxInterned = 1 << 16

// intern replaces m's repeated strings and its plan with the copies in.
// A plan is shared between the records that hold the same one: no reader
// changes a record's plan in place (code that needs another plan makes
// its own slices).
func (in *interner) intern(m *Measurement) {
	if in.strs == nil {
		in.strs, in.plans = map[string]string{}, map[string]*model.Plan{}
	}
	for _, s := range []*string{&m.Schema, &m.Kind, &m.SoC, &m.Workload, &m.WorkloadYAML, &m.Param, &m.Engine, &m.Unit, &m.Status} {
		in.str(s)
	}
	if m.Plan != nil {
		in.plan(m)
	}
	if len(m.Knobs) > 0 {
		knobs := make(map[string]string, len(m.Knobs))
		for k, v := range m.Knobs {
			in.str(&k)
			in.str(&v)
			knobs[k] = v
		}
		m.Knobs = knobs
	}
	if m.Host != nil {
		for _, s := range []*string{&m.Host.Name, &m.Host.Kernel, &m.Host.CPU, &m.Host.Arch} {
			in.str(s)
		}
	}
}

func (in *interner) str(s *string) {
	if v, ok := in.strs[*s]; ok {
		*s = v
	} else if len(in.strs) < maxInterned {
		in.strs[*s] = *s
	}
}

// plan replaces m.Plan with the first plan read that equals it.
func (in *interner) plan(m *Measurement) {
	p := m.Plan
	k := append(in.key[:0], p.Mode...)
	for _, e := range p.Engines {
		k = binary.AppendUvarint(k, uint64(len(e)))
		k = append(k, e...)
	}
	k = append(k, 0xff)
	for _, f := range p.Fracs {
		k = binary.LittleEndian.AppendUint64(k, math.Float64bits(f))
	}
	k = append(k, 0xff)
	for _, t := range p.Threads {
		k = binary.AppendVarint(k, int64(t))
	}
	k = append(k, 0xff)
	k = binary.AppendVarint(k, int64(p.Poll))
	k = append(k, 0xff, byte(len(p.BusyCores)))
	for _, b := range p.BusyCores {
		k = binary.AppendVarint(k, int64(b))
	}
	in.key = k
	if q, ok := in.plans[string(k)]; ok {
		m.Plan = q
		return
	}
	mode := string(p.Mode)
	in.str(&mode)
	p.Mode = model.Mode(mode)
	for i := range p.Engines {
		in.str(&p.Engines[i])
	}
	if len(in.plans) < maxInterned {
		in.plans[string(k)] = p
	}
}
