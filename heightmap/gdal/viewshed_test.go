package gdal

import (
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
)

// TestViewshed: on a flat grid GDAL sees every cell; a 10 m wall hides
// the cells behind it from a 1.8 m eye.
func TestViewshed(t *testing.T) {
	const w, h = 40, 30
	g := &heightmap.Grid{Width: w, Height: h, Elev: make([]float32, w*h), Dx: 2, Dy: 3}
	v, err := NewViewshed(g)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, w*h)
	if err := v.Viewshed(5, 15, 1.8, 0, out); err != nil {
		t.Fatal(err)
	}
	for i, b := range out {
		if b != 255 {
			t.Fatalf("flat grid: cell (%d,%d) is %d, want 255", i%w, i/w, b)
		}
	}
	v.Close()
	for r := range h {
		g.Elev[r*w+20] = 10
	}
	v, err = NewViewshed(g)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.Viewshed(5, 15, 1.8, 0, out); err != nil {
		t.Fatal(err)
	}
	for c := 21; c < w; c++ {
		if out[15*w+c] != 0 {
			t.Errorf("cell (%d,15) behind the wall is %d, want 0", c, out[15*w+c])
		}
	}
	if out[15*w+10] != 255 {
		t.Errorf("cell (10,15) before the wall is %d, want 255", out[15*w+10])
	}
	if err := v.Viewshed(w, 0, 1.8, 0, out); err == nil {
		t.Error("an observer outside the grid is accepted")
	}
}
