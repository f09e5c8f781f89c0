package gguf

import (
	"encoding/json"
	"io"

	"github.com/blsim/blsim/model"
)

// YAML is the workload the GGUF file at path describes, as workload YAML,
// with what the mapping noticed (Mapping.Notes): what blsim workloads
// from-gguf writes.
func YAML(path string) ([]byte, []string, error) {
	m, err := Read(path)
	if err != nil {
		return nil, nil, err
	}
	mp, err := m.Map()
	if err != nil {
		return nil, nil, err
	}
	b, err := model.MarshalWorkload(mp.Workload)
	return b, mp.Notes, err
}

// Show writes the model at path as blsim sees it (Summary), or its
// Description as indented JSON.
func Show(w io.Writer, path string, ubatch int, asJSON bool) error {
	m, err := Read(path)
	if err != nil {
		return err
	}
	if !asJSON {
		return m.Summary(w, ubatch)
	}
	d, err := m.Describe(ubatch)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
