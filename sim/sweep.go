package sim

import (
	"github.com/blsim/blsim/model"
)

// Config is one point of a sweep: a SoC (possibly a what-if variant) and a
// plan.
type Config struct {
	SoC  *model.SoC
	Plan model.Plan
}
