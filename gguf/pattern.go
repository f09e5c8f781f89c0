package gguf

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
)

// pattern sets the layer pattern, the sliding window and, for hybrids,
// the Gated DeltaNet shape.
func (m *Model) pattern(g meta, fam family, p string, s *shape) error {
	a := &s.arch
	note := func(format string, x ...any) { s.notes = append(s.notes, fmt.Sprintf(format, x...)) }
	kinds := make([]byte, a.Layers)
	for i := range kinds {
		kinds[i] = 'F'
	}
	switch {
	case fam.hybrid:
		recur, ok, err := g.bools(p+"attention.recurrent_layers", a.Layers)
		if err != nil {
			return err
		}
		if !ok {
			interval, has, err := g.int(p + "full_attention_interval")
			if err != nil {
				return err
			}
			if !has {
				interval = 4
				note("%sfull_attention_interval missing: llama.cpp's default 4 (three Gated DeltaNet layers, then full attention)", p)
			}
			if interval < 1 {
				return g.err(p+"full_attention_interval", "%d", interval)
			}
			recur = make([]bool, a.Layers)
			for i := range recur {
				recur[i] = (i+1)%interval != 0
			}
		}
		for i, r := range recur {
			if r {
				kinds[i] = 'L'
			}
		}
		lin, err := m.linear(g, p)
		if err != nil {
			return err
		}
		a.Linear = lin
	case fam.swaPeriod > 0:
		window, has, err := g.int(p + "attention.sliding_window")
		if err != nil {
			return err
		}
		if !has {
			if fam.window == 0 {
				return g.err(p+"attention.sliding_window", "missing (%s has sliding-window layers)", m.Arch)
			}
			window = fam.window
			note("%sattention.sliding_window missing: llama.cpp's default %d for %s", p, window, m.Arch)
		}
		if window == 0 {
			note("%sattention.sliding_window is 0: every layer full attention", p)
			break
		}
		swa, err := m.swaLayers(g, fam, p, a.Layers)
		if err != nil {
			return err
		}
		for i, sl := range swa {
			if sl {
				kinds[i] = 'S'
			}
		}
		a.Attention.SlidingWindow = window
	}
	if m.Arch == "phi3" {
		if w, ok, _ := g.int(p + "attention.sliding_window"); ok && w > 0 {
			note("%sattention.sliding_window %d is ignored: llama.cpp runs phi3 without a sliding window (llama.cpp PR 13676)", p, w)
		}
	}
	a.Pattern = period(kinds)
	if !strings.Contains(a.Pattern, "S") {
		a.Attention.SlidingWindow = 0
	}
	return nil
}

// swaLayers says which layers slide: ARCH.attention.sliding_window_pattern
// as one bool per layer or as a period, else the architecture's period.
func (m *Model) swaLayers(g meta, fam family, p string, layers int) ([]bool, error) {
	key := p + "attention.sliding_window_pattern"
	n := fam.swaPeriod
	if v, ok := m.File.Get(key); ok {
		if v.Type == Array {
			b, _, err := g.bools(key, layers)
			return b, err
		}
		k, _, err := g.int(key)
		if err != nil {
			return nil, err
		}
		n = k
	}
	out := make([]bool, layers)
	for i := range out {
		out[i] = n == 0 || i%n < n-1 // llama_hparams::set_swa_pattern
	}
	return out, nil
}

// linear reads the Gated DeltaNet layers' shape (llama.cpp's qwen3next
// and qwen35moe loaders).
func (m *Model) linear(g meta, p string) (*model.LinearAttention, error) {
	conv, err := g.need(p+"ssm.conv_kernel", "the Gated DeltaNet convolution")
	if err != nil {
		return nil, err
	}
	state, err := g.need(p+"ssm.state_size", "the Gated DeltaNet head width")
	if err != nil {
		return nil, err
	}
	vHeads, err := g.need(p+"ssm.time_step_rank", "the Gated DeltaNet value heads")
	if err != nil {
		return nil, err
	}
	kHeads, err := g.need(p+"ssm.group_count", "the Gated DeltaNet key heads")
	if err != nil {
		return nil, err
	}
	inner, err := g.need(p+"ssm.inner_size", "the Gated DeltaNet value width")
	if err != nil {
		return nil, err
	}
	if inner != state*vHeads {
		return nil, g.err(p+"ssm.inner_size", "%d is not state_size %d x time_step_rank %d, the value width llama.cpp's tensors have", inner, state, vHeads)
	}
	// q, k (key heads x state each), v and the output gate z (value
	// width each), and the per-value-head beta and alpha.
	return &model.LinearAttention{
		InProjOut: 2*kHeads*state + 2*inner + 2*vHeads, OutProjIn: inner,
		ValueHeads: vHeads, KeyDim: state, ValueDim: state, ConvKernel: conv,
	}, nil
}

// period returns the shortest pattern that repeats to kinds.
func period(kinds []byte) string {
	for n := 1; n <= len(kinds); n++ {
		ok := true
		for i := n; i < len(kinds) && ok; i++ {
			ok = kinds[i] == kinds[i%n]
		}
		if ok {
			return string(kinds[:n])
		}
	}
	return string(kinds)
}
