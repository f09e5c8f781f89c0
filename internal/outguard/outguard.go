// Package outguard holds the one rule for a command's outputs: no output
// path may be any input the command reads, whatever flag named it. It
// reads the inputs off the command's flags and arguments themselves, so a
// flag added later is guarded without a word: every value a flag holds
// (and every word of it: a --bench command line names its model), every
// argument, and every shard of a split GGUF among them.
package outguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blsim/blsim/gguf"
	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/spf13/pflag"
)

// Check checks, before any work, each output flag of fs that holds a path
// (atomicfile.CheckOutput): it must be none of the inputs, and no other
// output. outputs are flag names ("output", "measurements").
func Check(fs *pflag.FlagSet, args []string, outputs ...string) error {
	for i, name := range outputs {
		f := fs.Lookup(name)
		if f == nil || f.Value.String() == "" {
			continue
		}
		path := f.Value.String()
		for _, other := range outputs[i+1:] {
			if g := fs.Lookup(other); g != nil && samePath(path, g.Value.String()) {
				return fmt.Errorf("%s %s: is also %s; name two files", flagName(f), path, flagName(g))
			}
		}
		inputs, named := Inputs(fs, args, name)
		if err := atomicfile.CheckOutput(path, inputs...); err != nil {
			if in := atomicfile.SameAsAny(path, inputs); in != "" {
				return fmt.Errorf("%s %s: is also an input (%s); name another file", flagName(f), path, named[in])
			}
			return fmt.Errorf("%s %s: %w", flagName(f), path, err)
		}
	}
	return nil
}

// CheckDir checks the output folder that flag name of fs holds, which a
// command replaces as a whole: no input may be it or lie inside it, and
// it must be a folder that can be renamed (not the current folder, one
// above it, or a mount point) in a parent that takes a new folder.
func CheckDir(fs *pflag.FlagSet, args []string, name string) error {
	f := fs.Lookup(name)
	dir := filepath.Clean(f.Value.String())
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	inputs, named := Inputs(fs, args, name)
	for _, in := range inputs {
		for _, w := range atomicfile.Words(in) {
			if _, err := os.Stat(w); err != nil {
				continue
			}
			if wa, err := filepath.Abs(w); err == nil && (wa == abs || strings.HasPrefix(wa, abs+string(filepath.Separator))) {
				return fmt.Errorf("%s %s: holds an input (%s), which replacing it would delete; name another folder", flagName(f), dir, named[in])
			}
		}
	}
	if err := atomicfile.CheckDirOutput(abs); err != nil {
		return fmt.Errorf("%s %s: %w", flagName(f), dir, err)
	}
	return nil
}

// Inputs are the values of every flag of fs but skip that can name a
// file (not a number or a switch) and the arguments, each GGUF shard
// expanded to all its model's shards; named maps each to how the command
// line gave it ("--workload w.yaml").
func Inputs(fs *pflag.FlagSet, args []string, skip string) (inputs []string, named map[string]string) {
	named = map[string]string{}
	add := func(v, how string) {
		if v == "" {
			return
		}
		if _, dup := named[v]; !dup {
			inputs = append(inputs, v)
			named[v] = how
		}
		for _, w := range atomicfile.Words(v) {
			for _, s := range gguf.Shards(w) {
				if _, dup := named[s]; !dup {
					inputs = append(inputs, s)
					named[s] = fmt.Sprintf("%s, a shard of the model %s names", s, how)
				}
			}
		}
	}
	// The flags given first: one that shares its value with another (--gguf
	// sets --workload's) is named as the user gave it.
	visit := func(f *pflag.Flag, changed bool) {
		if f.Name == skip || f.Changed != changed {
			return
		}
		switch f.Value.Type() {
		case "bool", "int", "int64", "uint64", "float64", "duration", "count":
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				add(v, flagName(f)+" "+v)
			}
			return
		}
		add(f.Value.String(), flagName(f)+" "+f.Value.String())
	}
	fs.VisitAll(func(f *pflag.Flag) { visit(f, true) })
	fs.VisitAll(func(f *pflag.Flag) { visit(f, false) })
	for i, a := range args {
		add(a, fmt.Sprintf("argument %d, %s", i+1, a))
	}
	return inputs, named
}

// flagName is how a flag is given: -o for one with a shorthand.
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// samePath: two outputs that are one file, by name or, when it exists, by
// device and inode.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	aa, _ := filepath.Abs(a)
	ba, _ := filepath.Abs(b)
	return aa == ba || atomicfile.SameAsAny(a, []string{b}) != ""
}
