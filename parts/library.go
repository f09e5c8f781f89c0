package parts

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed cores/*.yaml memory/*.yaml runtimes/*.yaml
var files embed.FS

// RuntimeSchema is the schema tag of a runtime part.
const RuntimeSchema = "blsim/runtime/v1"

// A Runtime is a thread-pool runtime's handoff costs (package model's
// Handoff keys): what a SoC that names parts and writes no handoff gets.
type Runtime struct {
	Schema  string    `yaml:"schema"`
	Name    string    `yaml:"name"`
	Title   string    `yaml:"title"`
	Handoff yaml.Node `yaml:"handoff"`
	notes   map[string]string
}

// Note is the source of the value at path (handoff.futex_wake_us).
func (r *Runtime) Note(path string) string { return noteOf(r.notes, path) }

// DefaultRuntime is the runtime a SoC that names parts gets.
const DefaultRuntime = "llama.cpp"

type library struct {
	cores     map[string]*Core
	coreAlias map[string]string
	memories  map[string]*Memory
	memAlias  map[string]string
	runtimes  map[string]*Runtime
}

var (
	libOnce sync.Once
	theLib  *library
	libErr  error
)

// lib is the embedded library, loaded once. A part file that does not
// load is a build defect (the package's tests load every one): lib panics
// with the file and the reason.
func lib() *library {
	libOnce.Do(func() { theLib, libErr = load(files) })
	if libErr != nil {
		panic(libErr)
	}
	return theLib
}

func load(fsys fs.FS) (*library, error) {
	l := &library{cores: map[string]*Core{}, coreAlias: map[string]string{}, memories: map[string]*Memory{},
		memAlias: map[string]string{}, runtimes: map[string]*Runtime{}}
	err := eachFile(fsys, "cores", func(file string, data []byte) error {
		var c Core
		notes, err := decodePart(data, file, &c)
		if err != nil {
			return err
		}
		c.notes = notes
		if err := c.validate(file); err != nil {
			return err
		}
		l.cores[c.Name] = &c
		return addAliases(l.coreAlias, c.Name, c.Aliases, file)
	})
	if err == nil {
		err = eachFile(fsys, "memory", func(file string, data []byte) error {
			var m Memory
			notes, err := decodePart(data, file, &m)
			if err != nil {
				return err
			}
			m.notes = notes
			if err := m.validate(file); err != nil {
				return err
			}
			l.memories[m.Name] = &m
			return addAliases(l.memAlias, m.Name, m.Aliases, file)
		})
	}
	if err == nil {
		err = eachFile(fsys, "runtimes", func(file string, data []byte) error {
			var r Runtime
			notes, err := decodePart(data, file, &r)
			if err != nil {
				return err
			}
			r.notes = notes
			if r.Schema != RuntimeSchema || r.Handoff.Kind != yaml.MappingNode {
				return fmt.Errorf("parts: %s: want schema %s and a handoff mapping", file, RuntimeSchema)
			}
			l.runtimes[r.Name] = &r
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	for _, c := range l.cores {
		// A reference has kernels of its own, or measured kernels and a
		// chain of references that ends at one with its own.
		for seen, r := map[string]bool{c.Name: true}, c; r.Kernels == nil; {
			ref, ok := l.cores[r.Reference]
			switch {
			case !ok || (ref.Kernels == nil && ref.Measured == nil):
				return nil, fmt.Errorf("parts: cores/%s.yaml: reference %q is not a core with kernels of its own or measured ones", r.Name, r.Reference)
			case seen[ref.Name]:
				return nil, fmt.Errorf("parts: cores/%s.yaml: references loop back to %s", c.Name, ref.Name)
			}
			seen[ref.Name], r = true, ref
		}
	}
	if _, ok := l.runtimes[DefaultRuntime]; !ok {
		return nil, fmt.Errorf("parts: no runtimes/%s.yaml", DefaultRuntime)
	}
	return l, nil
}

func eachFile(fsys fs.FS, dir string, fn func(file string, data []byte) error) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		file := dir + "/" + e.Name()
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return err
		}
		if err := fn(file, data); err != nil {
			return err
		}
	}
	return nil
}

func addAliases(m map[string]string, name string, aliases []string, file string) error {
	for _, a := range aliases {
		a = normalise(a)
		if other, dup := m[a]; dup {
			return fmt.Errorf("parts: %s: alias %q is also %s's", file, a, other)
		}
		m[a] = name
	}
	return nil
}

// decodePart decodes a part file strictly (every key known) into v and
// returns the notes of its values: each key path's comment.
func decodePart(data []byte, file string, v any) (map[string]string, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("parts: %s: %v", file, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("parts: %s: %v", file, err)
	}
	notes := map[string]string{}
	if len(root.Content) > 0 {
		collectNotes(root.Content[0], "", notes)
	}
	return notes, nil
}

// collectNotes records the comment of every key of mapping n (and of the
// mappings below it) by its dotted path.
func collectNotes(n *yaml.Node, path string, notes map[string]string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	last := "" // a comment heads the keys below it, up to the next one
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := k.Value
		if path != "" {
			p = path + "." + k.Value
		}
		if c := comment(k, v); c != "" {
			last = c
		}
		if last != "" {
			notes[p] = last
		}
		collectNotes(v, p, notes)
	}
}

// comment is a key's head and line comments and its value's line
// comment, without the #s, as one line.
func comment(k, v *yaml.Node) string {
	var parts []string
	for _, c := range []string{k.HeadComment, k.LineComment, v.LineComment} {
		for _, line := range strings.Split(c, "\n") {
			line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
			if line != "" {
				parts = append(parts, line)
			}
		}
	}
	return strings.Join(parts, " ")
}

// noteOf is the note at path, or its nearest ancestor's below the top
// level (a flow mapping's entries share their key's comment).
func noteOf(notes map[string]string, path string) string {
	for p := path; p != ""; {
		if n, ok := notes[p]; ok {
			return n
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}
