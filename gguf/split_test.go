package gguf

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeSplit writes b as count shards in dir the way gguf-split does: the
// metadata and the first tensors in shard 1, the rest spread over the
// others, each with split.no, split.count and split.tensors.count.
func writeSplit(t *testing.T, b *builder, dir, prefix string, count int) []string {
	t.Helper()
	per := (len(b.tensors) + count - 1) / count
	var paths []string
	for i := 0; i < count; i++ {
		s := newBuilder("")
		if i == 0 {
			s.kvs = append(s.kvs, b.kvs...)
		}
		s.kv("split.no", Uint16, uint64(i)).kv("split.count", Uint16, uint64(count)).kv("split.tensors.count", Int32, int64(len(b.tensors)))
		lo, hi := i*per, min((i+1)*per, len(b.tensors))
		s.tensors = append(s.tensors, b.tensors[lo:hi]...)
		name := fmt.Sprintf("%s-%05d-of-%05d.gguf", prefix, i+1, count)
		paths = append(paths, s.write(t, dir, name, 0))
	}
	return paths
}

// TestSplitModel: a model split by gguf-split is read from any of its
// shards as the one file it was, headers only; a missing or foreign shard
// is an error naming it.
func TestSplitModel(t *testing.T) {
	dir := t.TempDir()
	whole := qwen3moeBuilder(2)
	one, err := whole.model(t, "whole.gguf")
	if err != nil {
		t.Fatal(err)
	}
	want, err := one.Workload()
	if err != nil {
		t.Fatal(err)
	}
	paths := writeSplit(t, whole, dir, "m", 3)
	for _, p := range paths {
		m, err := Read(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(m.File.Tensors) != len(whole.tensors) {
			t.Errorf("%s: %d tensors, want %d", p, len(m.File.Tensors), len(whole.tensors))
		}
		w, err := m.Workload()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !reflect.DeepEqual(w.Model, want.Model) {
			t.Errorf("%s: model %+v, want %+v", p, w.Model, want.Model)
		}
		if !strings.Contains(strings.Join(m.Notes, "\n"), "a split model: 3 shards") {
			t.Errorf("%s: notes %q", p, m.Notes)
		}
	}

	// Errors: a shard missing, a shard renamed, a count that disagrees.
	bad := t.TempDir()
	ps := writeSplit(t, whole, bad, "m", 3)
	if err := os.Remove(ps[1]); err != nil {
		t.Fatal(err)
	}
	_, err = Read(ps[0])
	if err == nil || !strings.Contains(err.Error(), "shard 2 of 3 of "+ps[0]) || !strings.Contains(err.Error(), "m-00002-of-00003.gguf") {
		t.Errorf("missing shard: %v", err)
	}
	odd := t.TempDir()
	ps = writeSplit(t, whole, odd, "m", 2)
	renamed := filepath.Join(odd, "model.gguf")
	if err := os.Rename(ps[0], renamed); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(renamed); err == nil || !strings.Contains(err.Error(), "split.count: 2: the file is shard 1 of a split model, but its name does not follow") {
		t.Errorf("renamed shard: %v", err)
	}
	short := t.TempDir()
	b := qwen3moeBuilder(2)
	ps = writeSplit(t, b, short, "m", 2)
	s := newBuilder("").kv("split.no", Uint16, uint64(1)).kv("split.count", Uint16, uint64(2)).kv("split.tensors.count", Int32, int64(len(b.tensors)))
	s.write(t, short, filepath.Base(ps[1]), 0) // the second shard without its tensors
	if _, err := Read(ps[0]); err == nil || !strings.Contains(err.Error(), "split.tensors.count") {
		t.Errorf("tensors missing: %v", err)
	}
}
