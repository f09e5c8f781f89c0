package lm

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// NullShareThreshold is the share in the null space above which a parameter
// counts as unidentifiable; see Identifiability.NullShare.
const NullShareThreshold = 1e-6

// roundingNoise is the magnitude below which an element of a unit null
// direction is set to zero.
const roundingNoise = 1e-13

// Identifiability describes which parameters a Jacobian determines. It is
// computed from the singular value decomposition of the Jacobian with its
// columns scaled to unit Euclidean length, so it does not depend on the
// parameters' units; a zero column stays zero.
type Identifiability struct {
	// SingularValues of the column-scaled Jacobian, in decreasing order;
	// min(m, n) of them.
	SingularValues []float64
	// Condition is the ratio of the largest to the smallest singular value,
	// +Inf when the Jacobian has fewer rows than columns or a zero
	// singular value.
	Condition float64
	// NullSpace holds unit directions in parameter (x) space along which the
	// residuals do not change to first order: the right singular vectors
	// whose singular value is at most tol times the largest, plus those
	// beyond the number of rows, mapped back through the column scaling.
	// Each is signed so that its largest-magnitude element (the first of
	// them, within a relative 1e-6) is positive; elements below 1e-13,
	// which are rounding noise, are set to zero.
	NullSpace [][]float64
	// NullShare holds, for each parameter j, the squared length of the
	// projection of the scaled unit vector eⱼ onto the null space: 0 for a
	// parameter the data determine, 1 for one they do not affect at all,
	// and ½ for each of two parameters that only enter as a sum. It does
	// not depend on the choice of basis for the null space.
	NullShare []float64
	// Unidentifiable lists, in increasing order, the parameters whose
	// NullShare exceeds NullShareThreshold.
	Unidentifiable []int
}

// Identify analyses the m×n Jacobian j, treating singular values at most tol
// times the largest as zero; tol ≤ 0 means DefaultSingularTolerance.
func Identify(j mat.Matrix, tol float64) (Identifiability, error) {
	if tol <= 0 {
		tol = DefaultSingularTolerance
	}
	d, ok := decompose(j, tol)
	if !ok {
		return Identifiability{}, ErrSVD
	}
	_, n := j.Dims()
	id := Identifiability{
		SingularValues: d.sv,
		Condition:      math.Inf(1),
		NullShare:      d.share,
	}
	if len(d.sv) == n && d.sv[n-1] > 0 {
		id.Condition = d.sv[0] / d.sv[n-1]
	}
	for k := d.rank; k < n; k++ {
		dir := make([]float64, n)
		for i := range dir {
			dir[i] = d.v.At(i, k) / d.colNorm[i]
		}
		floats.Scale(1/floats.Norm(dir, 2), dir)
		if dir[leading(dir)] < 0 {
			floats.Scale(-1, dir)
		}
		for i, v := range dir {
			if math.Abs(v) < roundingNoise {
				dir[i] = 0
			}
		}
		id.NullSpace = append(id.NullSpace, dir)
	}
	for i, s := range d.share {
		if s > NullShareThreshold {
			id.Unidentifiable = append(id.Unidentifiable, i)
		}
	}
	return id, nil
}

// leading returns the index of the first element of x whose magnitude is
// within a relative 1e-6 of the largest, so that ties broken by rounding do
// not flip the sign convention.
func leading(x []float64) int {
	var big float64
	for _, v := range x {
		big = math.Max(big, math.Abs(v))
	}
	for i, v := range x {
		if math.Abs(v) >= big*(1-1e-6) {
			return i
		}
	}
	return 0
}

// decomposition is the SVD J·C⁻¹ = U·Σ·Vᵀ of a column-scaled Jacobian,
// C = diag(colNorm).
type decomposition struct {
	sv      []float64
	v       *mat.Dense // n×n
	colNorm []float64  // 1 for zero columns
	rank    int        // number of singular values above tol·σ_max
	share   []float64  // null-space share of each parameter
}

func decompose(j mat.Matrix, tol float64) (decomposition, bool) {
	m, n := j.Dims()
	js := mat.DenseCopyOf(j)
	d := decomposition{colNorm: make([]float64, n)}
	for c := 0; c < n; c++ {
		norm := mat.Norm(js.ColView(c), 2)
		if norm == 0 {
			norm = 1
		}
		d.colNorm[c] = norm
		for r := 0; r < m; r++ {
			js.Set(r, c, js.At(r, c)/norm)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(js, mat.SVDFullV) {
		return d, false
	}
	d.sv = svd.Values(nil)
	d.v = &mat.Dense{}
	svd.VTo(d.v)
	for _, s := range d.sv {
		if s > tol*d.sv[0] {
			d.rank++
		}
	}
	d.share = make([]float64, n)
	for i := 0; i < n; i++ {
		for k := d.rank; k < n; k++ {
			d.share[i] += d.v.At(i, k) * d.v.At(i, k)
		}
	}
	return d, true
}

// pseudoInverse returns (JᵀJ)⁺ computed through the column-scaled SVD,
// C⁻¹·V_r·Σ_r⁻²·V_rᵀ·C⁻¹, where r runs over the singular values above the
// tolerance.
func (d decomposition) pseudoInverse() *mat.SymDense {
	n := len(d.colNorm)
	cov := mat.NewSymDense(n, nil)
	if d.rank == 0 {
		return cov
	}
	w := mat.NewDense(n, d.rank, nil)
	for k := 0; k < d.rank; k++ {
		for i := 0; i < n; i++ {
			w.Set(i, k, d.v.At(i, k)/(d.sv[k]*d.colNorm[i]))
		}
	}
	cov.SymOuterK(1, w)
	return cov
}
