package dispatch

// Route returns the experts each of n tokens is routed to by the seeded
// uniform router of ubatch u, layer layer: topK distinct experts of experts
// per token, token t's in route[t*topK:(t+1)*topK]. It depends only on its
// arguments.
func Route(seed uint64, u, layer, n, experts, topK int) []int32 {
	route := make([]int32, n*topK)
	for t := range n {
		g := newRNG(mix(seed, 0x726f757465, uint64(u), uint64(layer), uint64(t)))
		sel := route[t*topK : (t+1)*topK]
		for k := range sel {
		draw:
			for {
				e := int32(g.next() % uint64(experts))
				for _, p := range sel[:k] {
					if p == e {
						continue draw
					}
				}
				sel[k] = e
				break
			}
		}
	}
	return route
}

// expertWork is one expert's share of an engine's work for one layer: the
// routed (token, choice) slots, slot = token*topK + choice, in token order,
// and where they start in the engine's gather buffer.
type expertWork struct {
	expert int
	slots  []int32
	base   int
}

// partition is an engine's expert work for one layer.
type partition struct {
	work  []expertWork
	pairs int // total slots
	// units is how many whole units the engine was given: tokens in a
	// token partition, experts in an expert partition. With none, the
	// engine has no work and its pool is not woken (empty).
	units int
	// tok0, tok1 are the tokens whose activations it reads in place (a
	// token partition).
	tok0, tok1 int
	// slots and tokens are, pair by pair in gather-buffer order, the slot
	// and the token of each (an expert partition gathers them).
	slots, tokens []int32
}

// empty reports whether the partition was given no unit. As in the
// simulator (sim's runner.cut), an engine whose share rounds to no whole
// token or expert gets no work: its pool is not woken and does not meet at
// the op's barrier. A partition with units but no routed slot (an expert
// partition whose experts no token chose) is woken, as the simulator
// charges it.
func (p *partition) empty() bool { return p.units == 0 }

// bySlot groups a route's slots by expert, in token order.
func bySlot(route []int32, experts int) [][]int32 {
	out := make([][]int32, experts)
	for s, e := range route {
		out[e] = append(out[e], int32(s))
	}
	return out
}

// tokenPartition keeps, of every expert, the slots whose token is in
// [lo, hi).
func tokenPartition(groups [][]int32, topK, lo, hi int) partition {
	p := partition{tok0: lo, tok1: hi, units: hi - lo}
	for e, slots := range groups {
		var mine []int32
		for _, s := range slots {
			if t := int(s) / topK; t >= lo && t < hi {
				mine = append(mine, s)
			}
		}
		if len(mine) > 0 {
			p.work = append(p.work, expertWork{expert: e, slots: mine, base: p.pairs})
			p.pairs += len(mine)
		}
	}
	return p
}

// expertPartition keeps the experts in [lo, hi) with all their slots.
func expertPartition(groups [][]int32, topK, lo, hi int) partition {
	p := partition{units: hi - lo}
	for e := lo; e < hi; e++ {
		if len(groups[e]) > 0 {
			p.work = append(p.work, expertWork{expert: e, slots: groups[e], base: p.pairs})
			p.pairs += len(groups[e])
			for _, s := range groups[e] {
				p.slots = append(p.slots, s)
				p.tokens = append(p.tokens, s/int32(topK))
			}
		}
	}
	return p
}
