package dispatch

import (
	"fmt"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// SyntheticName is the preset blsim bench runs by default.
const SyntheticName = "synthetic-moe"

// CalibrationName is the preset CalibrationWorkload starts from: Q8_0 gate
// and up experts, so that calibrate's runs reach the DRAM-bound regime.
const CalibrationName = "synthetic-moe-calib"

// DefaultMaxBytes caps the weights ScaleToLLC leaves when maxBytes is not
// positive: 1.5 GiB.
const DefaultMaxBytes = 3 << 29

// CalibrationWorkload is the synthetic-moe-calib preset, scaled as
// ScaleToLLC scales it: blsim calibrate's default.
func CalibrationWorkload(llcBytes, maxBytes int64) *model.Workload {
	w, err := presets.Workload(CalibrationName)
	if err != nil {
		panic(fmt.Sprintf("dispatch: embedded preset: %v", err))
	}
	ScaleToLLC(w, llcBytes, maxBytes)
	return w
}

// ScaleToLLC sets w's layer count so that its routed-expert weights are at
// least 2×llcBytes, never below its own count, capped so that all its
// weights fit in maxBytes (DefaultMaxBytes when not positive); at least 1.
// It returns the new count.
func ScaleToLLC(w *model.Workload, llcBytes, maxBytes int64) int {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	expert, all := LayerBytes(w)
	if expert <= 0 {
		return w.Model.Layers
	}
	layers := max(w.Model.Layers, int((2*llcBytes+expert-1)/expert))
	if limit := int(maxBytes / max(all, 1)); layers > limit {
		layers = limit
	}
	w.Model.Layers = min(max(layers, 1), 1000)
	return w.Model.Layers
}

// LayerBytes returns the routed-expert weight bytes of one MoE layer of w and
// all the weight bytes of one such layer.
func LayerBytes(w *model.Workload) (expert, all int64) {
	// The first of two layers: the last one's FFN runs only for the tokens
	// whose output is asked for.
	one := *w
	one.Model.Layers = 2
	one.Model.MoE.DenseLayers = 0
	one.Run.PromptTokens = one.Run.Ubatch + 1 // keep the output head out
	for _, o := range one.Ops(0) {
		if o.Layer != 0 {
			continue
		}
		switch o.Kind {
		case model.ExpertMatmul:
			expert += int64(o.WeightBytes)
			all += int64(o.WeightBytes)
		case model.Matmul:
			all += int64(o.WeightBytes)
		}
	}
	return expert, all
}
