package plots

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var update = flag.Bool("update", false, "rewrite the golden figures in testdata/golden")

// Golden figures are drawn at goldenW x goldenH, the size blsim report
// draws its heatmap and roofline, but at goldenDPI rather than PNGDPI, so
// that each file is 400x300 pixels and a few tens of KiB.
const (
	goldenW, goldenH = 8 * vg.Inch, 6 * vg.Inch
	goldenDPI        = 50
	// A pixel differs when one of its channels moves by more than
	// goldenChannelTol (of 255); a figure matches when at most
	// goldenMaxDiffFrac of its pixels differ (600 of 120,000). That
	// absorbs what another architecture's floating point moves: on arm64,
	// whose fused multiply-adds round otherwise, the heatmap's dashed
	// contours shift their dashes (about 330 pixels). It catches a moved
	// curve, bar or colour (a timeline at share 0.13 for 0.12: 8,400
	// pixels), not a changed digit (one in a legend label: about 580);
	// the tests of Figure.Texts check the words.
	goldenChannelTol  = 16
	goldenMaxDiffFrac = 0.005
)

// goldenFigures are one figure of each kind, of the seed configuration
// (rk3588, qwen3.5-35b-a3b, token split 0.88/0.12 at poll 50, 4+4
// threads): the split curve of its prediction, two layers of its timeline,
// the seed's reported runs against plain simulation, the what-if heatmap
// around its prediction on a small grid, and its roofline.
func goldenFigures(t *testing.T) map[string]*Figure {
	t.Helper()
	s, w := load(t, "rk3588")
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Sweep: true})
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]*Figure{}
	add := func(name string, fig *Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		figs[name] = fig
	}
	sd, err := SplitOf(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	fig, err := SplitCurve(sd)
	add("split", fig, err)
	td := simTimeline(t, s, w, seedPlan(s, 0.12, 50), 2)
	td.Title = seedTimelineTitle(s, w, 0.12, 50) + ", ubatch 0, layers 0-1"
	fig, err = Timeline(td)
	add("timeline", fig, err)
	fig, err = Parity(ParityData{SoC: s.Name, Workload: w.Name, Points: seedPoints(t, "rk3588")})
	add("parity", fig, err)
	wd, err := predict.WhatIfOf(p, s, w, predict.WhatIfOptions{NX: 6, NY: 5})
	if err != nil {
		t.Fatal(err)
	}
	fig, err = Heatmap(wd)
	add("heatmap", fig, err)
	rd, err := simRoofline(s, w, seedPlan(s, 0.12, 50))
	if err != nil {
		t.Fatal(err)
	}
	rd.Title = seedRooflineTitle(s, w, 0.12, 50)
	fig, err = Roofline(rd)
	add("roofline", fig, err)
	return figs
}

// TestGolden compares each kind of figure, drawn as PNG, with its golden
// file by decoded pixels. Regenerate them with
//
//	go test ./plots -run Golden -update
//
// and look at them before committing.
func TestGolden(t *testing.T) {
	for name, fig := range goldenFigures(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(goldenW, goldenH), vgimg.UseDPI(goldenDPI))}
			fig.Draw(draw.New(c))
			if _, err := c.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name+".png")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./plots -run Golden -update writes it)", err)
			}
			if bytes.Equal(want, buf.Bytes()) {
				return
			}
			n, total, err := diffPixels(want, buf.Bytes(), goldenChannelTol)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if float64(n) > goldenMaxDiffFrac*float64(total) {
				got := filepath.Join(t.ArtifactDir(), name+".png")
				if err := os.WriteFile(got, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Errorf("%s: %d of %d pixels (%.2f%%) differ by more than %d, at most %.1f%% may; the figure drawn is %s (kept with -artifacts); go test ./plots -run Golden -update rewrites the golden file",
					path, n, total, 100*float64(n)/float64(total), goldenChannelTol, 100*goldenMaxDiffFrac, got)
			}
		})
	}
}

// diffPixels decodes two PNG images of the same size and counts the
// pixels where a channel (8-bit, alpha included) differs by more than tol.
func diffPixels(a, b []byte, tol int) (n, total int, err error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, 0, fmt.Errorf("golden: %w", err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fmt.Errorf("drawn: %w", err)
	}
	ra, rb := ia.Bounds(), ib.Bounds()
	if ra.Dx() != rb.Dx() || ra.Dy() != rb.Dy() {
		return 0, 0, fmt.Errorf("golden is %dx%d pixels, drawn %dx%d", ra.Dx(), ra.Dy(), rb.Dx(), rb.Dy())
	}
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			if pixelDiffers(ia, ib, ra.Min.Add(image.Pt(x, y)), rb.Min.Add(image.Pt(x, y)), tol) {
				n++
			}
		}
	}
	return n, ra.Dx() * ra.Dy(), nil
}

func pixelDiffers(ia, ib image.Image, pa, pb image.Point, tol int) bool {
	r1, g1, b1, a1 := ia.At(pa.X, pa.Y).RGBA()
	r2, g2, b2, a2 := ib.At(pb.X, pb.Y).RGBA()
	for _, c := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
		d := int(c[0]>>8) - int(c[1]>>8)
		if d > tol || -d > tol {
			return true
		}
	}
	return false
}

// TestDiffPixels checks the comparison itself: a figure matches itself,
// and a few changed pixels are counted, within the tolerance or not.
func TestDiffPixels(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	for i := range img.Pix {
		img.Pix[i] = 200
		if i%4 == 3 {
			img.Pix[i] = 255 // opaque
		}
	}
	enc := func(m image.Image) []byte {
		var buf bytes.Buffer
		if err := png.Encode(&buf, m); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a := enc(img)
	img.Pix[0] = 200 - goldenChannelTol          // pixel (0, 0): within the tolerance
	img.Pix[4*11+2] = 200 - goldenChannelTol - 1 // pixel (1, 1): beyond it
	b := enc(img)
	if n, total, err := diffPixels(a, a, goldenChannelTol); n != 0 || total != 100 || err != nil {
		t.Errorf("same image: %d of %d differ, %v", n, total, err)
	}
	if n, _, err := diffPixels(a, b, goldenChannelTol); n != 1 || err != nil {
		t.Errorf("one pixel beyond the tolerance: %d differ, %v", n, err)
	}
	if _, _, err := diffPixels(a, enc(image.NewRGBA(image.Rect(0, 0, 10, 11))), goldenChannelTol); err == nil {
		t.Error("images of other sizes: no error")
	}
}
