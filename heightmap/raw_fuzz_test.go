package heightmap

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadRaw feeds arbitrary bytes, sizes, windows and options to the RAW
// heightmap reader: it must never panic, must ask Check before allocating
// the grid, and a grid it returns must be the window it was asked for, in
// finite metres.
func FuzzLoadRaw(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 0, 0, 0, 0, false, 0.0, 0.0)
	f.Add(make([]byte, 2*16*9), 16, 9, 2, 3, 5, 4, true, 30.0, 0.1)
	f.Add(make([]byte, 2*64*64), 0, 0, 60, 60, 10, 10, false, 1.0, 1.0)
	f.Add([]byte{1}, 0, 0, 0, 0, 0, 0, false, -1.0, math.NaN())
	p := filepath.Join(f.TempDir(), "in.r16") // one fuzzing process runs one input at a time
	f.Fuzz(func(t *testing.T, data []byte, w, h, col, row, ww, wh int, big bool, cell, zscale float64) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checked := false
		errBig := errors.New("too big")
		opt := Options{RawWidth: w, RawHeight: h, RawBigEndian: big, CellSize: cell, ZScale: zscale,
			Window: Window{Col: col, Row: row, Width: ww, Height: wh},
			Check: func(g *Grid) error {
				checked = true
				if int64(g.Width)*int64(g.Height) > 1<<20 {
					return errBig
				}
				return nil
			}}
		g, err := Load(p, opt)
		if err != nil {
			return
		}
		if !checked {
			t.Fatal("loaded without asking Check")
		}
		want := opt.Window
		if want == (Window{}) {
			want = Window{Width: g.SourceSize[0], Height: g.SourceSize[1]}
		}
		if g.Window != want || g.Width != want.Width || g.Height != want.Height || len(g.Elev) != g.Width*g.Height {
			t.Fatalf("window %v, grid %d×%d with %d cells, asked %v", g.Window, g.Width, g.Height, len(g.Elev), opt.Window)
		}
		for _, v := range g.Elev {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("height %v", v)
			}
		}
		if !(g.Dx > 0) || !(g.Dy > 0) {
			t.Fatalf("spacing %g × %g", g.Dx, g.Dy)
		}
	})
}
