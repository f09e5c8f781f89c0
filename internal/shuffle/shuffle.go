// Package shuffle orders the rounds of a measurement grid: each round in a
// permutation of its own, drawn from the round's number alone, so that a
// rerun or a resumed run sees the same order.
package shuffle

import "math/rand/v2"

// Round permutes xs in place in the order of round (from 1).
func Round[T any](xs []T, round int) {
	rng := rand.New(rand.NewPCG(uint64(round), 0x626c73696d)) // "blsim"
	rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}
