package plots

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"github.com/blsim/blsim/internal/atomicfile"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PNGDPI is the resolution of PNG output: a 6 in wide figure is 900 pixels.
const PNGDPI = 150

// Drawer draws itself onto a canvas; *plot.Plot and *Figure are Drawers.
type Drawer interface {
	Draw(c draw.Canvas)
}

// Format returns the output format for path from its extension: "png",
// "svg" or "pdf" (case-insensitive), or an error naming the extension.
func Format(path string) (string, error) {
	ext := filepath.Ext(path)
	switch strings.ToLower(ext) {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	case ".pdf":
		return "pdf", nil
	}
	if ext == "" {
		return "", fmt.Errorf("plots: %s has no extension; want .png, .svg or .pdf", path)
	}
	return "", fmt.Errorf("plots: unknown extension %q in %s; want .png, .svg or .pdf", ext, path)
}

// Write draws d at width x height in format ("png", "svg" or "pdf") and
// writes it to w. SVG output embeds its fonts.
func Write(w io.Writer, d Drawer, format string, width, height vg.Length) error {
	if !(width > 0 && height > 0) || width > 100*vg.Inch || height > 100*vg.Inch {
		return fmt.Errorf("plots: size %.1fx%.1f in is outside (0, 100] in", width/vg.Inch, height/vg.Inch)
	}
	var cw vg.CanvasWriterTo
	switch format {
	case "png":
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))}
	case "svg":
		cw = vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(true))
	case "pdf":
		c := newPDF(width, height)
		c.EmbedFonts(true)
		cw = c
	default:
		return fmt.Errorf("plots: unknown format %q; want png, svg or pdf", format)
	}
	d.Draw(draw.New(cw))
	_, err := cw.WriteTo(w)
	return err
}

// PDFDate is the creation and modification date every PDF figure carries,
// so that the same figure is the same file (fpdf, under vgpdf, would stamp
// the time it was drawn).
var PDFDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfDefaults serialises newPDF's use of fpdf's package-wide default dates.
var pdfDefaults sync.Mutex

// newPDF is vgpdf.New with its document dated PDFDate: fpdf takes a new
// document's dates from its package defaults, which are set for the call
// and put back to zero (fpdf's "the time of writing") after it.
func newPDF(width, height vg.Length) *vgpdf.Canvas {
	pdfDefaults.Lock()
	defer pdfDefaults.Unlock()
	fpdf.SetDefaultCreationDate(PDFDate)
	fpdf.SetDefaultModificationDate(PDFDate)
	defer fpdf.SetDefaultCreationDate(time.Time{})
	defer fpdf.SetDefaultModificationDate(time.Time{})
	return vgpdf.New(width, height)
}

// Save draws d at width x height into path, in the format its extension
// names (see Format), atomically (atomicfile.WriteFile: synced, renamed
// over path, the folder synced), so path is either the complete new figure
// or left as it was; on any error no file is left behind.
func Save(d Drawer, path string, width, height vg.Length) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Write(&buf, d, format, width, height); err != nil {
		return fmt.Errorf("plots: %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}
