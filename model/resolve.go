package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/blsim/blsim/parts"
	"go.yaml.in/yaml/v3"
)

// ResolveSoC reads a SoC document like ParseSoC and says where each value
// came from: the parts it names (package parts), the file (its line and
// comment), or a calibration (the values a fitted profile's
// provenance.measured lists). A value a part gave that is out of range
// says which part gave it.
func ResolveSoC(data []byte, name string) (*SoC, *parts.Resolution, error) {
	root, err := parseRoot(data, name)
	if err != nil {
		return nil, nil, err
	}
	res := parts.NewResolution(name)
	parts.RecordFile(root, "", res)
	if NamesParts(root) {
		if err := parts.Fill(root, name, res); err != nil {
			return nil, nil, err
		}
	}
	var s SoC
	if err := decodeRoot(root, name, &s); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			if src := res.Of(parts.NamedPath(root, fe.Path)); src.Layer == parts.FromPart {
				fe.Msg += fmt.Sprintf(" (the value part %s gives; override it in the file)", src.Part)
			}
		}
		return nil, nil, err
	}
	if p := s.Provenance; p != nil {
		note := p.Source
		if p.Host != "" {
			note += ", host " + p.Host
		}
		if p.Date != "" {
			note += ", " + p.Date
		}
		for _, path := range p.Measured {
			res.Set(path, parts.Source{Layer: parts.FromCalibration, Note: note})
		}
	}
	return &s, res, nil
}

// WriteResolved writes s as YAML, a complete profile to copy and edit,
// with each value's source in res as its line's comment.
func WriteResolved(w io.Writer, s *SoC, res *parts.Resolution) error {
	b, err := MarshalSoC(s)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	parts.Annotate(doc.Content[0], res)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err = w.Write(out.Bytes())
	return err
}

// NewSoCFile is the SoC file of a spec sheet (parts.SheetSpec.SoC),
// checked to resolve into a valid SoC.
func NewSoCFile(spec parts.SheetSpec) ([]byte, error) {
	b, err := spec.SoC()
	if err != nil {
		return nil, err
	}
	if _, err := ParseSoC(b, spec.Name); err != nil {
		return nil, err
	}
	return b, nil
}
