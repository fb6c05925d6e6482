package bake

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestGameRAW: a real window exported as a game engine does (16-bit
// little-endian RAW, samples 0–65535 over the terrain's height range, no
// georeferencing) and loaded with the flags a Unity user gives (cell size,
// height range) is the GeoTIFF's terrain to within half a quantisation
// step, and its store gives the same frontier sets but for pairs whose
// lines of sight graze the terrain within that step.
func TestGameRAW(t *testing.T) {
	tif := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 96, Height: 96})
	// A range wider than the window's, as an engine's terrain height is:
	// quantisation steps of 1 cm.
	lo, hi := 0.0, 65535*0.01
	q := (hi - lo) / 65535
	buf := make([]byte, 2*len(tif.Elev))
	for i, z := range tif.Elev {
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(math.Round((float64(z)-lo)/q)))
	}
	path := filepath.Join(t.TempDir(), "terrain.raw")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := heightmap.Load(path, heightmap.Options{CellSize: tif.Dx, HeightRange: [2]float64{lo, hi}})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Width != tif.Width || raw.Height != tif.Height || raw.Dx != tif.Dx {
		t.Fatalf("RAW read as %d×%d cells of %g m, want %d×%d of %g", raw.Width, raw.Height, raw.Dx, tif.Width, tif.Height, tif.Dx)
	}
	for i := range tif.Elev {
		if d := math.Abs(float64(raw.Elev[i] - tif.Elev[i])); d > q/2+1e-4 {
			t.Fatalf("cell %d: %g m from the RAW, %g from the GeoTIFF", i, raw.Elev[i], tif.Elev[i])
		}
	}
	p := horizon.ThesisParams()
	p.Sectors = 128
	var hier [2]*quadpvs.Hierarchy
	for k, dem := range []*heightmap.Grid{tif, raw} {
		out := filepath.Join(t.TempDir(), "s.pvs")
		if _, err := Run(context.Background(), Config{DEM: dem, Params: p, Outputs: []Output{{Path: out, Cap: compress.Cap{Codes: 1 << 30}}}}); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStore(out)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		hier[k] = s.Hierarchy
	}
	// The cells' PVSs: pairs judged differently.
	g := hier[0].G
	var w quadpvs.Walker
	var b0, b1 horizon.Bitmap
	differ, pairs := 0, 0
	for q := range g.Width * g.Height {
		i := hier[0].QuadIndex(0, q%g.Width, q/g.Width)
		t0, t1 := hier[0].PVS(i), hier[1].PVS(i)
		b0, b1 = w.Bitmap(g, &t0, b0), w.Bitmap(g, &t1, b1)
		for j := range b0.Words {
			differ += bits.OnesCount64(b0.Words[j] ^ b1.Words[j])
		}
		pairs += g.Width * g.Height
	}
	// Frontier sets of random mutually invisible pairs.
	var gr [2]*grow.Grower
	for k := range gr {
		if gr[k], err = grow.New(hier[k], []*heightmap.Grid{tif, raw}[k].Elev, nil); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 42))
	var s grow.Scratch
	var r0, r1 grow.Result
	same, grown, pts0, pts1, seen, checked := 0, 0, 0, 0, 0, 0
	for grown < 40 {
		a := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
		b := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
		if a == b {
			continue
		}
		opt := grow.Options{Merge: quadpvs.Lossless}
		if err := gr[0].Grow(a, b, opt, &s, &r0); err != nil {
			t.Fatal(err)
		}
		if r0.MutuallyVisible {
			continue
		}
		if err := gr[1].Grow(a, b, opt, &s, &r1); err != nil {
			t.Fatal(err)
		}
		grown++
		pts0 += r0.A.Points + r0.B.Points
		pts1 += r1.A.Points + r1.B.Points
		if r0.A.Points == r1.A.Points && r0.B.Points == r1.B.Points {
			same++
		}
		// The RAW's frontiers on the GeoTIFF's PVSs.
		for range 50 {
			a, b := cellIn(rng, &r1.A, g.Width, g.Height), cellIn(rng, &r1.B, g.Width, g.Height)
			for _, ab := range [][2][2]int{{a, b}, {b, a}} {
				see, err := gr[0].MaySee(ab[0], ab[1])
				if err != nil {
					t.Fatal(err)
				}
				checked++
				if see {
					seen++
				}
			}
		}
	}
	t.Logf("%d of %d cell pairs judged differently; %d of %d frontier sets the same size; %d against %d frontier points; %d of %d frontier pairs visible on the GeoTIFF", differ, pairs, same, grown, pts1, pts0, seen, checked)
	if differ*1000 > pairs || math.Abs(float64(pts1-pts0)) > 0.01*float64(pts0) || seen*200 > checked {
		t.Errorf("the RAW's store is not the GeoTIFF's within the quantisation")
	}
}

// cellIn returns a random cell of frontier f (of a w×h grid).
func cellIn(rng *rand.Rand, f *grow.Frontier, w, h int) [2]int {
	for {
		q := f.Quads[rng.IntN(len(f.Quads))]
		c := [2]int{q.Col() + rng.IntN(q.Size()), q.Row() + rng.IntN(q.Size())}
		if c[0] < w && c[1] < h {
			return c
		}
	}
}
