package plots

import (
	"image/color"

	"gonum.org/v1/plot/vg/draw"
)

// The Okabe–Ito palette, safe for the common forms of colour blindness.
var (
	black      = color.RGBA{0x00, 0x00, 0x00, 0xff}
	orange     = color.RGBA{0xe6, 0x9f, 0x00, 0xff}
	skyBlue    = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	blue       = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	vermillion = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	// bluishGreen and reddishPurple: for the thread sweep's lines past
	// four sets of clusters.
	bluishGreen   = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	reddishPurple = color.RGBA{0xcc, 0x79, 0xa7, 0xff}
)

// swatch is a filled-rectangle legend thumbnail.
type swatch struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.c)
	c.Fill(c.Rectangle.Path())
}
