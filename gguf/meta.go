package gguf

import "fmt"

// maxShape bounds every width, count and window read from the metadata:
// a value past it is a corrupt key, not a model.
const maxShape = 1 << 30

// meta reads typed metadata for the mapping, with errors naming the key.
type meta struct {
	f    *File
	file string
}

func (m *Model) meta() meta { return meta{f: m.File, file: m.Path} }

func (g meta) err(key, format string, a ...any) error {
	return &KeyError{File: g.file, Key: key, Msg: fmt.Sprintf(format, a...)}
}

// int returns the integer at key and whether it is there; a value of the
// wrong type, negative or past maxShape is an error.
func (g meta) int(key string) (int, bool, error) {
	v, ok := g.f.Get(key)
	if !ok {
		return 0, false, nil
	}
	n, isInt := v.Int()
	if !isInt || v.Type == Bool {
		return 0, true, g.err(key, "is %s (%s), not an integer", v, v.Type)
	}
	if n < 0 || n > maxShape {
		return 0, true, g.err(key, "%d is outside [0, %d]", n, maxShape)
	}
	return int(n), true, nil
}

// need returns the integer at key, which must be there; why says what it
// is for.
func (g meta) need(key, why string) (int, error) {
	n, ok, err := g.int(key)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, g.err(key, "missing (%s)", why)
	}
	return n, nil
}

// layerInt reads a value llama.cpp takes as a scalar or as one value per
// layer (get_key_or_arr): an array must hold one value for all layers
// where it is not zero (the zeros are layers without that part, such as
// the recurrent layers' attention heads), else the model varies per layer
// and blsim's one-shape-per-kind model cannot hold it.
func (g meta) layerInt(key string, layers int) (int, bool, error) {
	v, ok := g.f.Get(key)
	if !ok {
		return 0, false, nil
	}
	if v.Type != Array {
		return g.int(key)
	}
	if v.Len != uint64(layers) {
		return 0, true, g.err(key, "an array of %d values for %d layers", v.Len, layers)
	}
	if v.Elems == nil {
		return 0, true, g.err(key, "an array whose values were not kept: the header's small arrays hold more than %d values (gguf.MaxKeptElems)", MaxKeptElems)
	}
	val := 0
	for i, e := range v.Elems {
		n, isInt := e.Int()
		if !isInt || n < 0 || n > maxShape {
			return 0, true, g.err(key, "layer %d: %s is not a width or count", i, e)
		}
		switch {
		case n == 0:
		case val == 0:
			val = int(n)
		case int(n) != val:
			return 0, true, g.err(key, "varies per layer (%d at layer %d, %d before): blsim models one shape per layer kind", n, i, val)
		}
	}
	return val, true, nil
}

// bools reads an array of one bool (or 0/1 integer) per layer.
func (g meta) bools(key string, layers int) ([]bool, bool, error) {
	v, ok := g.f.Get(key)
	if !ok {
		return nil, false, nil
	}
	if v.Type != Array || v.Len != uint64(layers) || v.Elems == nil {
		return nil, true, g.err(key, "is %s, not one bool per layer (%d)", v, layers)
	}
	out := make([]bool, layers)
	for i, e := range v.Elems {
		if b, ok := e.Bool(); ok {
			out[i] = b
			continue
		}
		n, isInt := e.Int()
		if !isInt || (n != 0 && n != 1) {
			return nil, true, g.err(key, "layer %d: %s is not a bool", i, e)
		}
		out[i] = n == 1
	}
	return out, true, nil
}
