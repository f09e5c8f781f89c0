package calibrate

import (
	"testing"

	"github.com/blsim/blsim/internal/testgc"
)

// TestMain runs this package's tests at the collector's setting for
// recorded refits (testgc.Main).
func TestMain(m *testing.M) { testgc.Main(m) }
