package main

import (
	"bytes"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runPlot(args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newPlotCmd(&out, io.Discard)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

func TestPlotCmd(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	for _, soc := range []string{"rk3588", "ddr5"} {
		for _, kind := range []string{"split", "timeline"} {
			for _, ext := range []string{"png", "svg", "pdf"} {
				path := filepath.Join(dir, soc+"-"+kind+"."+ext)
				out, err := runPlot(kind, "--soc", soc, "-o", path)
				if err != nil {
					t.Fatalf("plot %s --soc %s -o %s: %v", kind, soc, path, err)
				}
				if out != "wrote "+path+"\n" {
					t.Errorf("stdout %q", out)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if ext == "png" {
					img, err := png.Decode(bytes.NewReader(b))
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					if img.Bounds().Dx() < 600 || img.Bounds().Dy() < 400 {
						t.Errorf("%s: %v pixels", path, img.Bounds())
					}
					again := path + ".again.png"
					if _, err := runPlot(kind, "--soc", soc, "-o", again); err != nil {
						t.Fatal(err)
					}
					if b2, _ := os.ReadFile(again); !bytes.Equal(b, b2) {
						t.Errorf("%s: two runs differ", path)
					}
				}
			}
		}
	}
	if _, err := runPlot("timeline", "--split", "expert", "--frac", "0.2", "--layers", "0", "--poll", "0", "-o", filepath.Join(dir, "all.svg")); err != nil {
		t.Fatal(err)
	}
}

func TestPlotCmdErrors(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink(filepath.Join(dir, "target.png"), link); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(dir, "runs.png") // an input that happens to end in .png
	if err := os.WriteFile(runs, seedFile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pie", "-o", filepath.Join(dir, "a.png")}, `unknown kind "pie"`},
		{[]string{"-o", filepath.Join(dir, "a.png")}, "want one kind"},
		{[]string{"split"}, "-o FILE is required"},
		{[]string{"split", "-o", filepath.Join(dir, "a.gif")}, `".gif"`},
		{[]string{"split", "-o", filepath.Join(dir, "no", "such", "a.png")}, "no such file"},
		{[]string{"timeline", "--split", "all", "-o", filepath.Join(dir, "a.png")}, "--split"},
		{[]string{"timeline", "--frac", "2", "-o", filepath.Join(dir, "a.png")}, "--frac"},
		{[]string{"split", "--soc", "nosuch", "-o", filepath.Join(dir, "a.png")}, "--soc"},
		{[]string{"split", "-o", link}, "is a symbolic link"},
		{[]string{"parity", "--measurements", runs, "-o", runs}, "is also an input"},
	} {
		_, err := runPlot(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("plot %v: error %v, want one containing %s", tc.args, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("plot %v: error is not one line: %q", tc.args, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 { // the link and the input
		t.Errorf("%d files in the folder, want the 2 put there", len(ents))
	}
	if b, err := os.ReadFile(runs); err != nil || !bytes.Equal(b, seedFile(t)) {
		t.Errorf("the input was changed: %v", err)
	}
}
