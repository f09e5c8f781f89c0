package gguf

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// shardName is llama.cpp's name for shard i (1-based) of n of a split
// model (llama_split_path: PREFIX-%05d-of-%05d.gguf).
var shardName = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// splitInfo reads a header's split.no and split.count (gguf-split's keys;
// count 0 when the file is not a shard).
func splitInfo(h *File) (no, count int, err error) {
	get := func(key string) (int, bool, error) {
		v, ok := h.Get(key)
		if !ok {
			return 0, false, nil
		}
		n, ok := v.Int()
		if !ok || n < 0 || n > 1<<16 {
			return 0, false, fmt.Errorf("%s: %s is not a shard count or index", key, v)
		}
		return int(n), true, nil
	}
	c, ok, err := get("split.count")
	if err != nil || !ok {
		return 0, 0, err
	}
	n, _, err := get("split.no")
	if err == nil && c > 0 && n >= c {
		err = fmt.Errorf("split.no: %d is not a shard of %d (shards count from 0)", n, c)
	}
	return n, c, err
}

// readSplit reads a split model from one of its shards, h at path: the
// shards are found by llama.cpp's names beside path, the metadata is the
// first shard's (gguf-split writes it there, and only split.* in the
// others), and the tensor infos are every shard's. Only headers are read.
// A missing or foreign shard is an error naming it.
func readSplit(h *File, path string, no, count int) (*Model, error) {
	sm := shardName.FindStringSubmatch(filepath.Base(path))
	if sm == nil {
		return nil, &KeyError{File: path, Key: "split.count", Msg: fmt.Sprintf("%d: the file is shard %d of a split model, but its name does not follow llama.cpp's PREFIX-00001-of-%05d.gguf, so the other shards cannot be found", count, no+1, count)}
	}
	if c, _ := strconv.Atoi(sm[3]); c != count {
		return nil, &KeyError{File: path, Key: "split.count", Msg: fmt.Sprintf("%d, but the name says %d shards", count, c)}
	}
	dir := filepath.Dir(path)
	shard := func(i int) string { return filepath.Join(dir, fmt.Sprintf("%s-%05d-of-%05d.gguf", sm[1], i+1, count)) }
	files := make([]*File, count)
	files[no] = h
	var notes []string
	for i := range files {
		if files[i] == nil {
			f, err := readFile(shard(i))
			if err != nil {
				return nil, fmt.Errorf("gguf: shard %d of %d of %s: %w", i+1, count, path, err)
			}
			files[i] = f
		}
		if n, c, err := splitInfo(files[i]); err != nil || n != i || c != count {
			return nil, &KeyError{File: shard(i), Key: "split.no", Msg: fmt.Sprintf("says shard %d of %d, want %d of %d", n+1, c, i+1, count)}
		}
		if n := partial(files[i]); n != "" {
			notes = append(notes, filepath.Base(shard(i))+": "+n)
		}
	}
	merged := *files[0]
	merged.Tensors = nil
	in := map[string]int{}
	for i, f := range files {
		for _, t := range f.Tensors {
			if j, dup := in[t.Name]; dup {
				// llama.cpp's loader: "invalid model: tensor '%s' is duplicated".
				return nil, &KeyError{File: shard(i), Key: t.Name, Msg: fmt.Sprintf("the tensor is in shard %d too; a model holds each tensor once", j+1)}
			}
			in[t.Name] = i
		}
		merged.Tensors = append(merged.Tensors, f.Tensors...)
	}
	if v, ok := files[0].Get("split.tensors.count"); ok {
		if n, ok := v.Int(); ok && n != int64(len(merged.Tensors)) {
			return nil, &KeyError{File: shard(0), Key: "split.tensors.count", Msg: fmt.Sprintf("%d, but the %d shards hold %d tensor infos", n, count, len(merged.Tensors))}
		}
	}
	merged.Size, merged.DataEnd = -1, 0 // the data is spread over the shards; each was checked
	m, err := newModel(&merged, path)
	if err != nil {
		return nil, err
	}
	m.Notes = append(m.Notes, notes...)
	m.Notes = append(m.Notes, fmt.Sprintf("a split model: %d shards, %d tensor infos, metadata from %s", count, len(merged.Tensors), filepath.Base(shard(0))))
	return m, nil
}

// Shards lists the files beside path that are shards of the same split
// model as path, by llama.cpp's names (PREFIX-00001-of-00003.gguf), path's
// own name among them; nil when path's name is not a shard's. What a
// command reads from one shard it reads from every one, so each is an
// input no output may overwrite.
func Shards(path string) []string {
	sm := shardName.FindStringSubmatch(filepath.Base(path))
	if sm == nil {
		return nil
	}
	dir := filepath.Dir(path)
	var out []string
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if m := shardName.FindStringSubmatch(e.Name()); m != nil && m[1] == sm[1] && m[3] == sm[3] {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}
