package dispatch

import (
	"testing"
	"unsafe"

	"github.com/blsim/blsim/internal/quant"
)

// TestWeightBytes: WeightBytes is what NewModel allocates, counted from
// the slices it allocated, for each storage kind, without allocating;
// and it refuses what NewModel refuses. calibrate.MemoryNeed sizes a
// calibration with it before anything is built.
func TestWeightBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		bits float64 // the experts' bits a weight
	}{
		{"q8 experts", 8.5},
		{"q4 experts", 4.5},
		{"f32 experts", 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tiny(t)
			w.Model.BitsPerWeight.ExpertsUp, w.Model.BitsPerWeight.ExpertsDown = tc.bits, tc.bits
			got, err := WeightBytes(w)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewModel(w, 1)
			if err != nil {
				t.Fatal(err)
			}
			var allocated int64
			for _, t := range m.list {
				allocated += int64(len(t.q4))*int64(unsafe.Sizeof(quant.BlockQ4{})) +
					int64(len(t.q8))*int64(unsafe.Sizeof(quant.BlockQ8{})) + int64(len(t.f))*4
			}
			if got != allocated || m.WeightBytes() != allocated || got == 0 {
				t.Errorf("WeightBytes %d, the model's %d, allocated %d", got, m.WeightBytes(), allocated)
			}
		})
	}
	bad := tiny(t)
	bad.Model.BitsPerWeight.ExpertsUp = 6.5625
	_, err := WeightBytes(bad)
	_, want := NewModel(bad, 1)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("q6: WeightBytes %v, NewModel %v", err, want)
	}
}
