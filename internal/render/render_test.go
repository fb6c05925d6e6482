package render

import (
	"image/color"
	"image/png"
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
