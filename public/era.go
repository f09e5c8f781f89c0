package public

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
	"github.com/blsim/blsim/quantize"
)

// The dates llama.cpp's CPU kernels changed in ways blsim models, from its
// git history (the merge dates of the PRs named).
const (
	// sgemmFrom: llamafile's sgemm (PR #6414) runs Q4_0 and Q8_0 (and f16,
	// f32) matmuls, tiles divided evenly among the threads.
	sgemmFrom = "2024-04-16"
	// chunkedFrom: PR #6915, matmuls in chunks the threads claim; before
	// it every matmul gave each thread a fixed row slice.
	chunkedFrom = "2024-05-15"
	// sgemmPromptOnlyFrom: PR #9330 keeps sgemm to batches of two tokens
	// or more; before it a generated token ran it too (gemm<3,1>: three
	// weight rows walked together, not vec_dot's streaming loop).
	sgemmPromptOnlyFrom = "2024-09-07"
)

// repackedFrom is the date ggml began to repack each type at load on an
// arm64 core with the dot product (before it, the type ran the generic,
// chunked kernels): Q4_0 with PR #9921, IQ4_NL with #10541, the rest as
// the rk3588 preset lists them (`git log -S` in ggml's repack.cpp). The
// 2024 interleaved schemes (Q4_0_4_8...) were repacked in the file from
// 2024-07-10 (PR #5780). Other ISAs' dates are taken to be these: the
// rows of other cores are from before all of them or after most.
var repackedFrom = map[string]string{
	"q4_0": "2024-11-15", "iq4_nl": "2024-11-28", "q8_0": "2025-12-01", "q4_k": "2025-12-01",
	"q5_k": "2026-02-01", "q6_k": "2026-02-01", "mxfp4": "2026-03-01",
}

// Era is what blsim changes of a SoC preset (whose kernels are today's)
// to run it as a build of Date did. The same rules apply to every row of
// that date; nothing in them is set from a row.
type Era struct {
	Date string
	// Chunked: matmuls are claimed in chunks (else fixed row slices).
	Chunked bool
	// SgemmTypes run through llamafile's sgemm: fixed slices, and, while
	// SgemmOneToken, a generated token's too.
	SgemmTypes    []string
	SgemmOneToken bool
	// Packed are types a row's build packs at load beyond the date's
	// stock build (Row.Packed): they are repacked.
	Packed []string
}

// EraOf is the era of a build date (YYYY, YYYY-MM or YYYY-MM-DD).
func EraOf(date string) Era {
	e := Era{Date: date, Chunked: date >= chunkedFrom}
	if date >= sgemmFrom {
		e.SgemmTypes = []string{"q4_0", "q8_0"}
		e.SgemmOneToken = date < sgemmPromptOnlyFrom
	}
	return e
}

// repacked reports whether the era's ggml repacks typ at load, given the
// scheme the file was made with.
func (e Era) repacked(typ string, s quantize.Scheme) bool {
	if s.Legacy() && typ == "q4_0" {
		return true // interleaved in the file
	}
	if slices.Contains(e.Packed, typ) {
		return true
	}
	from, ok := repackedFrom[typ]
	return ok && e.Date >= from
}

// Apply returns a copy of s as the era's llama.cpp runs w on it, with a
// line on each change:
//   - a type the preset repacks that the era did not runs the generic dot
//     kernels, at the engine's generic k-quant rate (its q3_k rate: PR
//     #8151 measured vec_dot within 5% per weight across q8_0, q4_K and
//     q2_K), Q4_0's dot loop at the core part's
//     generic_q4_0_ops_per_cycle where the part gives one (the loop's
//     own bound on that core) and llamafile's sgemm does not run Q4_0 in
//     that run, and in chunks, without the repacked path's one-token
//     efficiency (gemv_efficiency_by_type);
//   - before PR #6915 every matmul gives each thread a fixed slice;
//   - sgemm's types take fixed slices (tinyBLAS divides its tiles evenly),
//     and, before PR #9330, a generated token of a model whose matmuls
//     are all sgemm's runs without the one-token overlap.
func (e Era) Apply(s *model.SoC, w *model.Workload, scheme quantize.Scheme) (*model.SoC, []string) {
	c := s.Clone()
	var notes []string
	types := workloadTypes(w)
	prompt := w.Run.PromptTokens > 0
	sgemmNow := prompt || e.SgemmOneToken
	sgemmRuns := func(t string) bool { return sgemmNow && slices.Contains(e.SgemmTypes, t) }
	for i := range c.Engines {
		eng := &c.Engines[i]
		if eng.IsAccelerator() {
			continue
		}
		generic, hasGeneric := eng.KernelOpsPerCycle["q3_k"]
		var fixed, unpacked []string
		var loop float64 // Q4_0's dot loop rate, where the part gives it
		for _, t := range types {
			if e.repacked(t, scheme) || sgemmRuns(t) || !e.Chunked {
				fixed = append(fixed, t)
			}
			if slices.Contains(eng.RepackedTypes, t) && !e.repacked(t, scheme) {
				unpacked = append(unpacked, t)
				if hasGeneric {
					eng.KernelOpsPerCycle[t] = generic
				}
				if r := loopRate(eng.Core, t); r > 0 && !sgemmRuns(t) {
					eng.KernelOpsPerCycle[t], loop = r, r
				}
				// The generic dot loop has no one-token kernel of its own.
				delete(eng.GemvEfficiencyByType, t)
			}
		}
		eng.RepackedTypes = fixed
		switch {
		case len(unpacked) > 0 && loop > 0:
			notes = append(notes, fmt.Sprintf("%s: %s not repacked at %s: the generic kernels, at q3_k's rate (q4_0's dot loop at %g ops/cycle: the %s part's generic_q4_0_ops_per_cycle)", eng.Name, strings.Join(unpacked, ", "), e.Date, loop, eng.Core))
		case len(unpacked) > 0 && hasGeneric:
			notes = append(notes, fmt.Sprintf("%s: %s not repacked at %s: the generic kernels, at q3_k's rate", eng.Name, strings.Join(unpacked, ", "), e.Date))
		case len(unpacked) > 0:
			notes = append(notes, fmt.Sprintf("%s: %s not repacked at %s, but the preset has no generic (q3_k) rate: its own rate kept", eng.Name, strings.Join(unpacked, ", "), e.Date))
		}
		if e.SgemmOneToken && !prompt && allIn(types, e.SgemmTypes, "q6_k", "f32") && eng.GemvOverlap > 0 {
			eng.GemvOverlap = 0
			notes = append(notes, fmt.Sprintf("%s: a generated token runs llamafile's sgemm (before PR #9330): no one-token overlap", eng.Name))
		}
	}
	if !e.Chunked {
		notes = append(notes, fmt.Sprintf("%s is before PR #6915: every matmul in fixed row slices", e.Date))
	}
	return c, notes
}

// loopRate is the engine's core part's generic_q4_0_ops_per_cycle for
// typ q4_0 (ggml's generic Q4_0 dot loop on that core), 0 for any other
// type, a part that gives none or an engine that names no part.
func loopRate(core, typ string) float64 {
	if typ != "q4_0" || core == "" {
		return 0
	}
	c, err := parts.LookupCore(core)
	if err != nil {
		return 0
	}
	return c.GenericQ4_0OpsPerCycle
}

// workloadTypes are the GGML types of the workload's timed classes,
// sorted.
func workloadTypes(w *model.Workload) []string {
	set := map[string]bool{}
	for _, t := range w.Model.Types {
		set[t] = true
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// allIn reports whether every type but the extras (the output head's
// Q6_K, the router's f32) is one of set.
func allIn(types, set []string, extras ...string) bool {
	n := 0
	for _, t := range types {
		if slices.Contains(extras, t) {
			continue
		}
		if !slices.Contains(set, t) {
			return false
		}
		n++
	}
	return n > 0
}
