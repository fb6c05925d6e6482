package render

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestHillshadeAndPNG(t *testing.T) {
	elev := make([]float32, 30*20)
	for i := range elev {
		elev[i] = float32(i % 30) // a slope rising eastwards
	}
	img := Hillshade(elev, 30, 20, 1, 1)
	if b := img.Bounds(); b.Dx() != 30 || b.Dy() != 20 {
		t.Fatalf("bounds %v", b)
	}
	flat := Hillshade(make([]float32, 600), 30, 20, 1, 1)
	// Ground rising eastwards faces west: lit from the north-west, it is
	// brighter than flat ground, and the mirrored slope darker.
	for i := range elev {
		elev[i] = float32(30 - i%30)
	}
	east := Hillshade(elev, 30, 20, 1, 1)
	if !(img.RGBAAt(15, 10).R > flat.RGBAAt(15, 10).R && east.RGBAAt(15, 10).R < flat.RGBAAt(15, 10).R) {
		t.Errorf("west-facing %v, flat %v, east-facing %v", img.RGBAAt(15, 10), flat.RGBAAt(15, 10), east.RGBAAt(15, 10))
	}
	Tint(img, 0, 0, color.RGBA{255, 0, 0, 255}, 1)
	Marker(img, 29, 19, 3, color.RGBA{0, 0, 255, 255}) // clipped at the corner
	if img.RGBAAt(0, 0) != (color.RGBA{255, 0, 0, 255}) || img.RGBAAt(29, 19) != (color.RGBA{0, 0, 255, 255}) {
		t.Error("tint or marker not drawn")
	}
	p := filepath.Join(t.TempDir(), "h.png")
	if err := WritePNG(p, img); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(p)
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil || back.Bounds() != img.Bounds() {
		t.Errorf("PNG round trip: %v", err)
	}
}

// TestRelief: the tint follows height (low ground green, the top near
// white), the shade still shows (a slope facing the light is brighter than
// one facing away at the same height), nodata is transparent.
func TestRelief(t *testing.T) {
	const w, h = 40, 10
	elev := make([]float32, w*h)
	for i := range elev {
		x := i % w
		elev[i] = float32(100 * min(x, 2*w-x)) // rising east to the last column
	}
	nodata := make([]bool, w*h)
	nodata[5*w+3] = true
	img := Relief(elev, nodata, w, h, 10, 10)
	low, top := img.RGBAAt(1, 5), img.RGBAAt(w-1, 5)
	if !(low.G > low.R && low.G > low.B) {
		t.Errorf("low ground %v, want green", low)
	}
	if !(top.R > 180 && top.G > 180 && top.B > 180) {
		t.Errorf("the top %v, want near white", top)
	}
	if img.RGBAAt(3, 5).A != 0 {
		t.Errorf("nodata drawn %v", img.RGBAAt(3, 5))
	}
	for i := range elev {
		elev[i] = float32(100 * (w - i%w))
	}
	east := Relief(elev, nil, w, h, 10, 10) // the same heights mirrored: faces east, away from the light
	if a, b := img.RGBAAt(20, 5), east.RGBAAt(w-20, 5); !(a.R > b.R) {
		t.Errorf("west-facing %v not brighter than east-facing %v at the same height", a, b)
	}
}

// TestMetricAndLegend: a geographic grid's cells (66.5 × 92.6 m) are drawn
// taller than wide, at least 2 pixels across; every cell keeps its colour;
// the legend strip sits below the picture.
func TestMetricAndLegend(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for y := range 3 {
		for x := range 4 {
			img.SetRGBA(x, y, color.RGBA{uint8(40 * x), uint8(60 * y), 9, 255})
		}
	}
	big, sx, sy, err := Metric(img, 66.5, 92.6, 2)
	if err != nil || sx != 2 || math.Abs(sy-2*92.6/66.5) > 1e-9 || big.Rect.Dx() != 8 || big.Rect.Dy() != int(math.Ceil(3*sy)) {
		t.Fatalf("scale %g × %g, %v", sx, sy, big.Rect)
	}
	for y := range 3 {
		for x := range 4 {
			px, py := int((float64(x)+0.5)*sx), int((float64(y)+0.5)*sy)
			if big.RGBAAt(px, py) != img.RGBAAt(x, y) {
				t.Errorf("cell (%d,%d) drawn %v, want %v", x, y, big.RGBAAt(px, py), img.RGBAAt(x, y))
			}
		}
	}
	// Cells of 0.01 × 100 m: 10,000 pixels down per pixel across.
	for _, sp := range [][2]float64{{0.01, 100}, {0, 5}, {math.NaN(), 1}, {math.Inf(1), 1}} {
		if _, _, _, err := Metric(image.NewRGBA(image.Rect(0, 0, 1000, 1000)), sp[0], sp[1], 2); err == nil {
			t.Errorf("cells of %g × %g m drawn", sp[0], sp[1])
		}
	}
	out := WithLegend(big, []LegendItem{{Swatch: color.RGBA{255, 0, 0, 255}, Label: "A"}, {Label: "note"}}, 10)
	if out.Rect.Dx() < big.Rect.Dx() || out.Rect.Dy() <= big.Rect.Dy() || out.RGBAAt(1, 1) != big.RGBAAt(1, 1) {
		t.Errorf("legend picture %v for %v", out.Rect, big.Rect)
	}
	if sw := out.RGBAAt(8, big.Rect.Dy()+10); sw != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("swatch %v", sw)
	}
}
