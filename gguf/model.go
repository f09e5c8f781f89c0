package gguf

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/internal/termsafe"
)

// Model is a GGUF file's header read for blsim: the metadata and tensor
// infos, the architecture, and what reading noticed.
type Model struct {
	// Path is the file read ("" when read from bytes).
	Path string
	File *File
	// Arch is general.architecture; Name is general.name ("" if absent).
	Arch, Name string
	// Notes are facts the reading noticed that do not stop it: a file
	// shorter than its tensor data (a partial download or a header-only
	// file).
	Notes []string
}

// KeyError is a metadata key (or tensor) that the mapping needs and the
// file lacks, or holds in a form blsim cannot use.
type KeyError struct {
	File string
	Key  string
	Msg  string
}

func (e *KeyError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Key, e.Msg)
}

// ErrNotGGUF is wrapped by the error for a file that is not a GGUF at all
// (no GGUF magic): a caller taking a workload YAML or a GGUF can tell them
// apart with errors.Is.
var ErrNotGGUF = errors.New("not a GGUF file")

// Read reads the header of the GGUF file at path: never its tensor data,
// so a 20 GB model is read in milliseconds and a few MB of memory. The
// error names the file and the offset, key or tensor at fault, on one
// line.
func Read(path string) (*Model, error) {
	h, err := readFile(path)
	if err != nil {
		return nil, err
	}
	no, count, err := splitInfo(h)
	if err != nil {
		return nil, &KeyError{File: path, Key: "split.count", Msg: err.Error()}
	}
	if count > 1 {
		return readSplit(h, path, no, count)
	}
	return newModel(h, path)
}

// readFile reads the header of one file.
func readFile(path string) (*File, error) {
	f, err := readfile.Open(path) // a pipe no program writes to is an error, not a wait
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer f.Close()
	h, err := ReadHeader(f, f.Size())
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.File = path
		}
		return nil, err
	}
	return h, nil
}

// FromHeader makes a Model of a header read with ReadHeader; name stands
// for the file in errors.
func FromHeader(h *File, name string) (*Model, error) { return newModel(h, name) }

func newModel(h *File, path string) (*Model, error) {
	m := &Model{Path: path, File: h}
	v, ok := h.Get("general.architecture")
	if !ok {
		return nil, &KeyError{File: path, Key: "general.architecture", Msg: "missing: a GGUF of a model names its architecture"}
	}
	arch, ok := v.Str()
	if !ok {
		return nil, &KeyError{File: path, Key: "general.architecture", Msg: fmt.Sprintf("is a %s, not a string", v.Type)}
	}
	// Exactly as written: llama.cpp looks the name up as it is, so " llama"
	// is no architecture it loads.
	m.Arch = arch
	if v, ok := h.Get("general.name"); ok {
		if s, ok := v.Str(); ok {
			m.Name = termsafe.Escape(oneLine(s))
		}
	}
	if n := partial(h); n != "" {
		m.Notes = append(m.Notes, n)
	}
	return m, nil
}

// partial notes a file shorter than the tensor data its header describes.
func partial(h *File) string {
	if h.Size >= 0 && h.DataEnd > h.Size {
		return fmt.Sprintf("the tensor data ends at byte %d but the file has %d: a partial download or a header-only file (its shapes and types are still read)", h.DataEnd, h.Size)
	}
	return ""
}

// DataBytes is the size of all tensor data the header describes.
func (m *Model) DataBytes() int64 {
	n := int64(0)
	for _, t := range m.File.Tensors {
		n += t.Bytes()
	}
	return n
}

// Tensor returns the tensor named name.
func (m *Model) Tensor(name string) (Tensor, bool) {
	for _, t := range m.File.Tensors {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// Classes sums the tensors by class, in Classes order. Before the
// mapping knows the block count, every blk.N tensor counts as a layer's.
func (m *Model) Classes() []ClassStats {
	blocks := math.MaxInt
	if n, ok, _ := m.meta().int(m.Arch + ".block_count"); ok {
		blocks = n
	}
	_, hasOut := m.Tensor("output.weight")
	return classStats(m.File.Tensors, blocks, !hasOut)
}

// name is what a workload made from the file is called.
func (m *Model) name() string {
	if m.Name != "" {
		return m.Name
	}
	base := filepath.Base(m.Path)
	if base == "." || base == "/" || base == "" {
		return m.Arch
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
