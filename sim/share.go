package sim

import "sort"

// shareBandwidth divides total among demands: each gets at most its demand;
// "maxmin" fills the smallest demands first, "proportional" scales all
// demands down together. out must have len(demand).
func shareBandwidth(out, demand []float64, total float64, policy string) {
	sum := 0.0
	for _, d := range demand {
		sum += d
	}
	if sum <= total {
		copy(out, demand)
		return
	}
	if policy == "proportional" {
		for i, d := range demand {
			out[i] = d * total / sum
		}
		return
	}
	// Max-min fair: water-filling over demands in increasing order.
	idx := make([]int, len(demand))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return demand[idx[a]] < demand[idx[b]] })
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
