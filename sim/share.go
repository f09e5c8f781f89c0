package sim

import "github.com/blsim/blsim/model"

// shareBandwidth divides total among demands: each gets at most its demand;
// model.ShareMaxMin fills the smallest demands first, model.ShareProportional
// scales all demands down together. out must have len(demand).
func shareBandwidth(out, demand []float64, total float64, policy model.Sharing) {
	sum := 0.0
	for _, d := range demand {
		sum += d
	}
	if sum <= total {
		copy(out, demand)
		return
	}
	if policy == model.ShareProportional {
		for i, d := range demand {
			out[i] = d * total / sum
		}
		return
	}
	// Max-min fair: water-filling over demands in increasing order (ties
	// in index order). A stable insertion sort of the indices, on the
	// stack for the usual handful of engines: this runs in the burst
	// model's innermost loop.
	var buf [8]int
	idx := buf[:0]
	if len(demand) > len(buf) {
		idx = make([]int, 0, len(demand))
	}
	for i := range demand {
		k := len(idx)
		idx = append(idx, i)
		for k > 0 && demand[idx[k-1]] > demand[i] {
			idx[k] = idx[k-1]
			k--
		}
		idx[k] = i
	}
	left := total
	for k, i := range idx {
		fair := left / float64(len(idx)-k)
		if demand[i] <= fair {
			out[i] = demand[i]
		} else {
			out[i] = fair
		}
		left -= out[i]
	}
}
