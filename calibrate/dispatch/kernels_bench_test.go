package dispatch

import "testing"

func BenchmarkDotQ4Q8(b *testing.B) {
	r := newRNG(1)
	x := make([]blockQ4, 32)
	y := make([]blockQ8, 32)
	for i := range x {
		x[i].d = f16(1.0 / 64)
		for j := range x[i].qs {
			x[i].qs[j] = byte(r.next())
		}
		y[i].d = f16(1.0 / 128)
		for j := range y[i].qs {
			y[i].qs[j] = int8(r.next())
		}
	}
	var s float32
	for b.Loop() {
		s += dotQ4Q8(x, y)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(32*32), "ns/MAC")
	sink = s
}

var sink float32
