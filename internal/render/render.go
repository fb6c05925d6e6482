// Package render draws terrain pictures for the commands: a hillshade or a
// tinted shaded relief of a heightmap with overlays, written as PNG.
package render

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/frontiersets/frontiersets/internal/atomicfile"
)

// Hillshade returns a grey shaded-relief image of a width×height heightmap
// (elev row-major in metres, dx, dy metres per cell), lit from the north-west
// at 45° elevation, one pixel per cell.
func Hillshade(elev []float32, width, height int, dx, dy float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	at := func(c, r int) float64 {
		c = min(max(c, 0), width-1)
		r = min(max(r, 0), height-1)
		return float64(elev[r*width+c])
	}
	az, alt := 315*math.Pi/180, 45*math.Pi/180
	lx, ly, lz := math.Sin(az)*math.Cos(alt), -math.Cos(az)*math.Cos(alt), math.Sin(alt)
	for r := range height {
		for c := range width {
			gx := (at(c+1, r) - at(c-1, r)) / (2 * dx)
			gy := (at(c, r+1) - at(c, r-1)) / (2 * dy)
			// surface normal (-gx, -gy, 1), y growing southwards
			n := math.Sqrt(gx*gx + gy*gy + 1)
			s := (-gx*lx - gy*ly + lz) / n
			v := uint8(40 + 200*math.Max(0, s))
			img.SetRGBA(c, r, color.RGBA{v, v, v, 255})
		}
	}
	return img
}

// reliefRamp is the hypsometric tint: colours at fractions of the height
// range, lowlands green to bare rock and snow (a conventional atlas ramp).
var reliefRamp = []struct {
	at      float64
	r, g, b float64
}{
	{0, 94, 140, 86}, {0.2, 146, 176, 104}, {0.4, 214, 204, 138}, {0.6, 196, 156, 104}, {0.8, 160, 124, 100}, {1, 246, 244, 240},
}

// Relief returns a shaded-relief image of a width×height heightmap (elev
// row-major in metres, dx, dy metres per cell): a hypsometric tint over the
// heights between the lowest and highest cells that are not nodata (nodata
// may be nil), lit as Hillshade, one pixel per cell; nodata cells are
// transparent.
func Relief(elev []float32, nodata []bool, width, height int, dx, dy float64) *image.RGBA {
	img := Hillshade(elev, width, height, dx, dy)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range elev {
		if (nodata == nil || !nodata[i]) && !math.IsNaN(float64(v)) {
			lo, hi = min(lo, float64(v)), max(hi, float64(v))
		}
	}
	span := hi - lo
	if !(span > 0) {
		span = 1
	}
	for i, v := range elev {
		x, y := i%width, i/width
		if nodata != nil && nodata[i] {
			img.SetRGBA(x, y, color.RGBA{})
			continue
		}
		f := min(max((float64(v)-lo)/span, 0), 1)
		k := 1
		for k < len(reliefRamp)-1 && reliefRamp[k].at < f {
			k++
		}
		a, b := reliefRamp[k-1], reliefRamp[k]
		t := (f - a.at) / (b.at - a.at)
		// The shade (40–240 in Hillshade) scales the tint from 0.45 to 1.2.
		s := 0.45 + 0.75*(float64(img.RGBAAt(x, y).R)-40)/200
		c := func(u, w float64) uint8 { return uint8(min(255, max(0, (u+(w-u)*t)*s))) }
		img.SetRGBA(x, y, color.RGBA{c(a.r, b.r), c(a.g, b.g), c(a.b, b.b), 255})
	}
	return img
}

// Tint blends colour c into pixel (x,y) of img with weight a in [0,1].
func Tint(img *image.RGBA, x, y int, c color.RGBA, a float64) {
	p := img.RGBAAt(x, y)
	mix := func(u, v uint8) uint8 { return uint8(float64(u)*(1-a) + float64(v)*a) }
	img.SetRGBA(x, y, color.RGBA{mix(p.R, c.R), mix(p.G, c.G), mix(p.B, c.B), 255})
}

// Marker draws a filled disc of radius r pixels with a white rim at (x,y).
func Marker(img *image.RGBA, x, y, r int, c color.RGBA) {
	for dy := -r - 1; dy <= r+1; dy++ {
		for dx := -r - 1; dx <= r+1; dx++ {
			d2 := dx*dx + dy*dy
			if !(image.Point{x + dx, y + dy}.In(img.Rect)) || d2 > (r+1)*(r+1) {
				continue
			}
			if d2 <= r*r {
				img.SetRGBA(x+dx, y+dy, c)
			} else {
				img.SetRGBA(x+dx, y+dy, color.RGBA{255, 255, 255, 255})
			}
		}
	}
}

// WritePNG encodes img to path atomically (see atomicfile.Write).
func WritePNG(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// MaxPixels bounds Metric's pictures: 2^26 pixels, 256 MiB as RGBA.
const MaxPixels = 1 << 26

// Metric scales a picture of a grid with one pixel per cell (dx × dy metres
// per cell) to metric aspect, nearest neighbour: at least minPx pixels per
// cell along the finer spacing, so that a geographic grid's cells, longer
// north–south than east–west, are drawn so. It returns the picture and the
// pixels per cell across (sx) and down (sy): cell (c,r) covers
// [c·sx, (c+1)·sx) × [r·sy, (r+1)·sy). Errors: spacings that are not
// finite and positive, or a picture of more than MaxPixels (a grid whose
// cells are far longer one way than the other).
func Metric(img *image.RGBA, dx, dy float64, minPx int) (big *image.RGBA, sx, sy float64, err error) {
	if !(dx > 0 && dy > 0) || math.IsInf(dx, 0) || math.IsInf(dy, 0) {
		return nil, 0, 0, fmt.Errorf("render: cells of %g × %g m cannot be drawn to scale", dx, dy)
	}
	unit := min(dx, dy) / float64(max(minPx, 1))
	sx, sy = dx/unit, dy/unit
	w, h := img.Rect.Dx(), img.Rect.Dy()
	fw, fh := math.Ceil(float64(w)*sx), math.Ceil(float64(h)*sy)
	if fw*fh > MaxPixels {
		return nil, 0, 0, fmt.Errorf("render: %d×%d cells of %.3g × %.3g m need a picture of %.0f×%.0f pixels, more than %d million; draw a smaller window",
			w, h, dx, dy, fw, fh, MaxPixels>>20)
	}
	W, H := int(fw), int(fh)
	big = image.NewRGBA(image.Rect(0, 0, W, H))
	for y := range H {
		for x := range W {
			big.SetRGBA(x, y, img.RGBAAt(img.Rect.Min.X+min(int(float64(x)/sx), w-1), img.Rect.Min.Y+min(int(float64(y)/sy), h-1)))
		}
	}
	return big, sx, sy, nil
}

// LegendItem is one line of a legend: a colour swatch (none when Swatch
// has zero alpha) and its label.
type LegendItem struct {
	Swatch color.RGBA
	Label  string
}

// WithLegend returns img with a white strip below it holding the items, one
// line each, and a scale bar of a round length when metresPerPx > 0.
// The legend's labels are in Go Regular (golang.org/x/image/font/gofont),
// hinted at 13 px; basicfont if the embedded font ever fails to parse.
func WithLegend(img *image.RGBA, items []LegendItem, metresPerPx float64) *image.RGBA {
	face := legendFace()
	const line, pad = 18, 6
	rows := len(items)
	if metresPerPx > 0 {
		rows++
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	width := max(w, 260)
	for _, it := range items {
		width = max(width, pad+20+font.MeasureString(face, it.Label).Ceil()+pad)
	}
	out := image.NewRGBA(image.Rect(0, 0, width, h+rows*line+2*pad))
	draw.Draw(out, out.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(out, image.Rect(0, 0, w, h), img, img.Rect.Min, draw.Src)
	d := font.Drawer{Dst: out, Src: image.Black, Face: face}
	y := h + pad
	for _, it := range items {
		if it.Swatch.A > 0 {
			draw.Draw(out, image.Rect(pad, y+3, pad+12, y+15), image.NewUniform(it.Swatch), image.Point{}, draw.Src)
		}
		d.Dot = fixed.P(pad+20, y+14)
		d.DrawString(it.Label)
		y += line
	}
	if metresPerPx > 0 {
		// The largest 1-2-5 length that fits in a third of the width.
		m := math.Pow(10, math.Floor(math.Log10(float64(w)/3*metresPerPx)))
		for _, f := range []float64{5, 2, 1} {
			if f*m/metresPerPx <= float64(w)/3 {
				m *= f
				break
			}
		}
		n := int(math.Round(m / metresPerPx))
		draw.Draw(out, image.Rect(pad, y+8, pad+n, y+11), image.Black, image.Point{}, draw.Src)
		d.Dot = fixed.P(pad+n+8, y+14)
		if m >= 1000 {
			d.DrawString(fmt.Sprintf("%g km", m/1000))
		} else {
			d.DrawString(fmt.Sprintf("%g m", m))
		}
	}
	return out
}

var (
	fontOnce sync.Once
	goFont   *opentype.Font
)

// legendFace returns Go Regular at 13 px (a new face per call: faces are
// not safe for concurrent use; the parsed font is shared), or basicfont
// when the embedded font fails to parse.
func legendFace() font.Face {
	fontOnce.Do(func() { goFont, _ = opentype.Parse(goregular.TTF) })
	if goFont != nil {
		if fc, err := opentype.NewFace(goFont, &opentype.FaceOptions{Size: 13, DPI: 72, Hinting: font.HintingFull}); err == nil {
			return fc
		}
	}
	return basicfont.Face7x13
}
