package dispatch

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/model"
)

// Record is the llama-bench record of res, a run of m's workload with plan
// on cpus (each engine's CPUs, one per thread), as blsim bench prints it:
// the plan's split, clusters, little fraction and threads and the
// engines' expert time are in its Fields. cpuInfo names the CPU; now is
// the test's time.
func (m *Model) Record(plan model.Plan, cpus map[string][]int, res Result, cpuInfo string, now time.Time) llamabench.Record {
	w := m.w
	e := w.Model.MoE
	var clusters []string
	for _, name := range plan.Engines {
		clusters = append(clusters, name+"="+topology.FormatCPUList(cpus[name]))
	}
	rec := llamabench.Record{
		BuildCommit:    "blsim",
		CPUInfo:        cpuInfo,
		Backends:       "CPU",
		ModelFilename:  w.Name,
		ModelType:      fmt.Sprintf("%s %dL %dx%d top-%d %s", w.Name, w.Model.Layers, e.Experts, e.ExpertFFN, e.TopK, model.KernelClassOf(w.Model.BitsPerWeight.ExpertsUp)),
		ModelSizeBytes: m.WeightBytes(),
		ModelParams:    int64(w.ParamsTotal()),
		NBatch:         max(w.Run.PromptTokens, w.Run.Ubatch),
		NUbatch:        w.Run.Ubatch,
		NThreads:       plan.Threads[0],
		CPUMask:        cpuMask(cpus),
		CPUStrict:      true,
		Poll:           plan.Poll,
		NPrompt:        w.Run.PromptTokens,
		NGen:           0,
		NDepth:         w.Run.Depth,
		TestTime:       now.UTC().Truncate(time.Second),
		Fields: map[string]string{
			"bl_split":    string(plan.Mode),
			"bl_clusters": strings.Join(clusters, " "),
		},
	}
	var ns, ts []float64
	for i, d := range res.Samples {
		rec.SamplesNS = append(rec.SamplesNS, d.Nanoseconds())
		rec.SamplesTS = append(rec.SamplesTS, res.TPS[i])
		ns = append(ns, float64(d.Nanoseconds()))
		ts = append(ts, res.TPS[i])
	}
	avg, sd := meanSD(ns)
	rec.AvgNS, rec.StddevNS = int64(math.Round(avg)), int64(math.Round(sd))
	rec.AvgTS, rec.StddevTS = meanSD(ts)
	if plan.Mode != model.Native {
		rec.Fields["bl_little_frac"] = strconv.FormatFloat(plan.Fracs[1], 'g', 6, 64)
		rec.Fields["bl_little_threads"] = strconv.Itoa(plan.Threads[1])
	}
	var et []string
	for _, d := range res.ExpertTime {
		et = append(et, strconv.FormatInt(d.Nanoseconds(), 10))
	}
	rec.Fields["bl_expert_ns"] = strings.Join(et, "/")
	return rec
}

// meanSD is the mean and sample standard deviation, as llama-bench.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(max(len(xs), 1))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// cpuMask is the hexadecimal mask of the CPUs used, as llama-bench prints it.
func cpuMask(cpus map[string][]int) string {
	var mask big.Int
	var all []int
	for _, c := range cpus {
		all = append(all, c...)
	}
	slices.Sort(all)
	for _, c := range all {
		mask.SetBit(&mask, c, 1)
	}
	return "0x" + mask.Text(16)
}
