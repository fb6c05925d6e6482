// Package render draws terrain pictures for the commands: a hillshade of a
// heightmap with overlays, written as PNG.
package render

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"frontiersets/internal/atomicfile"
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
