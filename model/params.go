package model

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Parameters are addressed by dotted paths built from the YAML keys, with
// engines named rather than indexed:
//
//	dram.sustained_gb_s
//	engines.little.bandwidth_max_gb_s
//	engines.big.kernel_ops_per_cycle.q4
//	handoff.futex_wake_us
//
// Fitting, uncertainty and what-if sweeps all use these paths.

// Get returns the numeric parameter at path.
func (s *SoC) Get(path string) (float64, error) {
	v, err := s.param(path)
	if err != nil {
		return 0, err
	}
	return v.get(), nil
}

// Set changes the numeric parameter at path (integers are rounded).
func (s *SoC) Set(path string, x float64) error {
	v, err := s.param(path)
	if err != nil {
		return err
	}
	v.set(x)
	return nil
}

// SetWithTypes is Set, except that a kernel class's rate
// (engines.big.kernel_ops_per_cycle.q4) carries the engine's GGML-type
// rates of that class (q4_k, iq4_xs: KernelClass of their bits) by the
// same factor, unless the profile gives a type an uncertainty of its own.
// Uncertainty draws and what-if sweeps set parameters this way, so a
// workload that names its types moves as one that does not.
func (s *SoC) SetWithTypes(path string, x float64) error {
	old, err := s.Get(path)
	if err != nil {
		return err
	}
	if err := s.Set(path, x); err != nil {
		return err
	}
	name, class, ok := kernelPath(path)
	if !ok || !isClass(class) || old == 0 {
		return nil
	}
	e, _, err := s.Engine(name)
	if err != nil {
		return err
	}
	for typ, rate := range e.KernelOpsPerCycle {
		b, known := ggmlTypeBits[typ]
		if !known || string(KernelClassOf(b)) != class {
			continue
		}
		if _, own := s.Uncertainty["engines."+name+".kernel_ops_per_cycle."+typ]; own {
			continue
		}
		e.KernelOpsPerCycle[typ] = rate * x / old
	}
	return nil
}

// kernelPath splits engines.<name>.kernel_ops_per_cycle.<key>.
func kernelPath(path string) (name, key string, ok bool) {
	rest, ok := strings.CutPrefix(path, "engines.")
	if !ok {
		return "", "", false
	}
	name, key, ok = strings.Cut(rest, ".kernel_ops_per_cycle.")
	return name, key, ok && !strings.Contains(name, ".")
}

// Params lists every numeric parameter path of the SoC, sorted.
func (s *SoC) Params() []string {
	var out []string
	collect := func(prefix string, rv reflect.Value) {
		walkNumeric(rv, func(key string, _ reflect.Value) { out = append(out, prefix+key) })
	}
	collect("dram.", reflect.ValueOf(&s.DRAM).Elem())
	collect("handoff.", reflect.ValueOf(&s.Handoff).Elem())
	for i := range s.Engines {
		e := &s.Engines[i]
		walkNumeric(reflect.ValueOf(e).Elem(), func(key string, _ reflect.Value) {
			if e.IsAccelerator() || !accelOnly[key] {
				out = append(out, "engines."+e.Name+"."+key)
			}
		})
		for k := range e.KernelOpsPerCycle {
			out = append(out, "engines."+e.Name+".kernel_ops_per_cycle."+k)
		}
		if e.SMTYield != nil {
			for _, k := range smtYieldKeys {
				out = append(out, "engines."+e.Name+".smt_yield."+k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// accelOnly are the numeric engine fields only accelerators have; a CPU
// engine has no such parameters.
var accelOnly = map[string]bool{"submit_us": true, "setup_us_per_op": true}

type paramRef struct {
	get func() float64
	set func(float64)
}

func (s *SoC) param(path string) (paramRef, error) {
	parts := strings.Split(path, ".")
	bad := func(msg string) (paramRef, error) {
		return paramRef{}, fmt.Errorf("parameter %q: %s", path, msg)
	}
	var rv reflect.Value
	switch {
	case len(parts) == 2 && parts[0] == "dram":
		rv = reflect.ValueOf(&s.DRAM).Elem()
	case len(parts) == 2 && parts[0] == "handoff":
		rv = reflect.ValueOf(&s.Handoff).Elem()
	case len(parts) >= 3 && parts[0] == "engines":
		e, _, err := s.Engine(parts[1])
		if err != nil {
			return bad(fmt.Sprintf("no engine %q (have %s)", parts[1], s.engineNames()))
		}
		if len(parts) == 4 && parts[2] == "kernel_ops_per_cycle" {
			k := parts[3]
			if _, ok := e.KernelOpsPerCycle[k]; !ok {
				return bad("no such kernel class")
			}
			return paramRef{
				get: func() float64 { return e.KernelOpsPerCycle[k] },
				set: func(x float64) { e.KernelOpsPerCycle[k] = x },
			}, nil
		}
		if len(parts) == 4 && parts[2] == "smt_yield" {
			if e.SMTYield == nil {
				return bad("the engine gives no smt_yield")
			}
			f := e.SMTYield.field(parts[3])
			if f == nil {
				return bad("no such SMT yield (want matmul, attention, scalar or dram)")
			}
			return paramRef{get: func() float64 { return *f }, set: func(x float64) { *f = x }}, nil
		}
		if len(parts) != 3 {
			return bad("too many parts")
		}
		rv = reflect.ValueOf(e).Elem()
		parts = parts[1:]
	default:
		return bad("want dram.X, handoff.X or engines.NAME.X")
	}
	var found reflect.Value
	walkNumeric(rv, func(key string, f reflect.Value) {
		if key == parts[1] && !(rv.Type() == reflect.TypeOf(Engine{}) && accelOnly[key] && rv.FieldByName("Kind").String() == string(KindCPU)) {
			found = f
		}
	})
	if !found.IsValid() {
		return bad("no such numeric field")
	}
	if found.Kind() == reflect.Int {
		return paramRef{
			get: func() float64 { return float64(found.Int()) },
			set: func(x float64) { found.SetInt(int64(x + 0.5)) },
		}, nil
	}
	return paramRef{get: found.Float, set: found.SetFloat}, nil
}

// walkNumeric calls fn for each float64 or int field of struct rv with its
// YAML key.
func walkNumeric(rv reflect.Value, fn func(key string, f reflect.Value)) {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if key == "" || key == "-" || specOnly[key] {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Float64, reflect.Int:
			fn(key, rv.Field(i))
		}
	}
}
