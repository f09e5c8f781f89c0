// Package lm implements the Levenberg–Marquardt method for bounded nonlinear
// least squares, together with the statistics needed to judge a fit: the
// parameter covariance, standard errors and an identifiability analysis.
//
// # Problem
//
// A Problem supplies m residuals r(x) of n parameters x. Minimize finds the x
// that minimises the cost
//
//	F(x) = ½ Σᵢ wᵢ rᵢ(x)² + ½ Σⱼ ((xⱼ − μⱼ)/σⱼ)²
//
// where the weights wᵢ come from Settings.Weights (1 when nil) and the second
// sum runs over the parameters that have a Prior. The Jacobian of r is either
// supplied by the Problem or estimated by forward finite differences with a
// step relative to each parameter's magnitude.
//
// # Algorithm
//
// Each iteration solves the damped normal equations
//
//	(JᵀJ + μ·D) h = −Jᵀf
//
// by Cholesky factorisation, where f and J are the weighted residual vector
// (prior rows included) and its Jacobian, and D is Marquardt's scaling: the
// largest diagonal of JᵀJ seen so far for each parameter, which makes the
// method invariant to the parameters' units. The damping μ is updated by
// Nielsen's rule: after a step with gain ratio ρ > 0 it is multiplied by
// max(1/3, 1 − (2ρ − 1)³), after a rejected step by ν, which then doubles.
//
// # Bounds
//
// Bounds are handled by reparameterisation: the solver works in an
// unconstrained variable u and maps it to x with a smooth, monotone transform,
//
//	lower bound only:  x = lo + softplus(u),          softplus(u) = log(1 + eᵘ)
//	upper bound only:  x = hi − softplus(−u)
//	both bounds:       x = lo + (hi − lo)·logistic(u), logistic(u) = 1/(1 + e⁻ᵘ)
//
// Softplus was chosen over lo + eᵘ because it is the identity far from the
// bound, so a problem that is linear in x stays nearly linear in u and the
// local statistics are unaffected; near the bound it behaves like eᵘ. Every
// point the solver evaluates lies within the bounds (bounds are inclusive:
// rounding may place a parameter exactly on one), so Residuals need not be
// defined outside them. A start value exactly on a bound is moved inside, by
// 10⁻³·max(1, |bound|) for a one-sided bound and by 10⁻³ of the width for a
// two-sided one, because the transform maps the bound itself to u = ±∞.
//
// # Statistics
//
// The covariance is the delta-method image of the covariance in u. With
// J_u = J_x·T, T = diag(dx/du), and C_u = s²(J_uᵀJ_u)⁻¹, the delta method gives
// C_x = T·C_u·T = s²(J_xᵀJ_x)⁻¹ whenever T is invertible; Minimize evaluates
// the right-hand side directly from the x-space Jacobian, which is the same
// number away from the bounds and stays finite where dx/du vanishes at an
// active bound (there it describes the unconstrained local curvature, and the
// Gaussian approximation should be read with care).
//
// The inverse is a pseudo-inverse of the column-scaled Jacobian, so a singular
// JᵀJ is not an error: parameters with a component in its null space get a
// standard error of +Inf. Result also reports the identifiability of the
// parameters from the data alone (priors excluded): the singular values and
// condition number of the weighted Jacobian with its columns scaled to unit
// length, the null-space directions, and each parameter's share in them.
//
// # Priors
//
// A Prior{Mean, Sigma} on a parameter adds the residual (x − Mean)/Sigma, so a
// value measured independently (a microbenchmark, a datasheet) regularises the
// fit. With priors the result is the maximum a posteriori estimate under
// Gaussian noise and a Gaussian prior, and the covariance is the Laplace
// approximation of the posterior; a parameter the data cannot determine is
// pulled to its prior mean and gets the prior's uncertainty.
package lm
