package model

import (
	"reflect"
	"slices"
	"testing"

	"github.com/blsim/blsim/parts"
)

// The SMT yield's keys are one list (parts.SMTYieldKeys, which a core
// part is checked against): SMTYield's YAML keys are that list, in order,
// and each names its field.
func TestSMTYieldKeysListedOnce(t *testing.T) {
	typ := reflect.TypeOf(SMTYield{})
	var tags []string
	for i := 0; i < typ.NumField(); i++ {
		tags = append(tags, typ.Field(i).Tag.Get("yaml"))
	}
	if !slices.Equal(tags, parts.SMTYieldKeys) {
		t.Errorf("SMTYield's YAML keys %v, parts.SMTYieldKeys %v", tags, parts.SMTYieldKeys)
	}
	var y SMTYield
	for _, k := range smtYieldKeys {
		if y.field(k) == nil {
			t.Errorf("key %q names no field", k)
		}
	}
	if SMTYieldRange != parts.SMTYieldRange {
		t.Errorf("model's range %v, parts' %v", SMTYieldRange, parts.SMTYieldRange)
	}
}
