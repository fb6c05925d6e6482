package horizon

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// TestConservative: on windows of both real terrains (and the DSM at 256
// sectors, where the sector model's misses are largest), no cell the
// conservative mode hides is visible by the exact line of sight sampled at
// 16 points per cell, both for Viewshed and for Classify's pyramid; and it
// keeps most of the sector model's hidden cells (logged).
func TestConservative(t *testing.T) {
	size := 64
	if *fullFidelity {
		size = 160
	}
	for _, tc := range []struct {
		name     string
		col, row int
		sectors  int
	}{
		{"N44W072.hgt", 780, 820, 1024},
		{"annarbor-dsm-2ft.tif", 250, 300, 1024},
		{"annarbor-dsm-2ft.tif", 250, 300, 256},
	} {
		ter := loadWindow(t, tc.name, heightmap.Window{Col: tc.col, Row: tc.row, Width: size, Height: size})
		p := ThesisParams()
		p.Sectors = tc.sectors
		sector, err := New(ter, p)
		if err != nil {
			t.Fatal(err)
		}
		p.LOS = LOSConservative
		cons, err := New(ter, p)
		if err != nil {
			t.Fatal(err)
		}
		ws, wc := sector.NewWorker(), cons.NewWorker()
		lg := losref.Grid{Width: size, Height: size, Elev: ter.Elev}
		rng := rand.New(rand.NewPCG(11, uint64(tc.sectors)))
		lv := NewLevels(size, size)
		hiddenS, hiddenC, falseHidden, sectorFalse := 0, 0, 0, 0
		for range 10 {
			oc, or := rng.IntN(size), rng.IntN(size)
			bs, _ := ws.Viewshed(oc, or, Bitmap{})
			bc, _ := wc.Viewshed(oc, or, Bitmap{})
			if err := wc.Classify(oc, or, lv, nil); err != nil {
				t.Fatal(err)
			}
			for r := range size {
				for c := range size {
					if !bs.Visible(c, r) {
						hiddenS++
					}
					if bc.Visible(c, r) {
						continue
					}
					hiddenC++
					if levelStatus(lv, size, c, r) != QuadHidden {
						t.Fatalf("%s: Classify and Viewshed differ at (%d,%d) from (%d,%d)", tc.name, c, r, oc, or)
					}
					if losref.VisibleSampled(lg, oc, or, c, r, 1.8, 1.8, 16) {
						falseHidden++
					}
				}
			}
			for r := range size {
				for c := range size {
					if !bs.Visible(c, r) && losref.VisibleSampled(lg, oc, or, c, r, 1.8, 1.8, 16) {
						sectorFalse++
					}
				}
			}
		}
		t.Logf("%s %d² S=%d, 10 observers: conservative hides %d cells (%.1f%% of the sector model's %d); false-hidden against exact LOS: conservative %d, sector model %d",
			tc.name, size, tc.sectors, hiddenC, 100*float64(hiddenC)/float64(max(hiddenS, 1)), hiddenS, falseHidden, sectorFalse)
		if falseHidden != 0 {
			t.Errorf("%s S=%d: %d cells hidden by the conservative mode are visible by exact line of sight", tc.name, tc.sectors, falseHidden)
		}
	}
}

// levelStatus reads cell (c,r)'s status from a pyramid of a width-wide
// grid: the first quad from the top that is not mixed.
func levelStatus(lv Levels, width, c, r int) uint8 {
	for l := len(lv) - 1; l >= 0; l-- {
		cols := (width + 1<<l - 1) >> l
		if v := lv[l][(r>>l)*cols+c>>l]; v != QuadMixed || l == 0 {
			return v
		}
	}
	return QuadMixed
}

// TestConservativeWarped: on crops the project never baked — the HGT
// tile's committed crop warped to UTM at 30 m and at 80 m, the DSM's
// resampled to 1.5 m, each at an odd offset — no cell the conservative
// mode hides is visible by exact line of sight (16 samples per cell). It
// needs gdalwarp (Debian's gdal-bin).
func TestConservativeWarped(t *testing.T) {
	if _, err := exec.LookPath("gdalwarp"); err != nil {
		t.Skip("gdalwarp not installed (apt-get install gdal-bin)")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src string
		args      []string
		win       heightmap.Window
	}{
		{"HGT to UTM 30 m", "N44W072.hgt", []string{"-t_srs", "EPSG:32619", "-tr", "30", "30", "-r", "bilinear"}, heightmap.Window{Col: 1101, Row: 1207, Width: 56, Height: 56}},
		{"HGT to UTM 80 m", "N44W072.hgt", []string{"-t_srs", "EPSG:32619", "-tr", "80", "80", "-r", "bilinear"}, heightmap.Window{Col: 403, Row: 389, Width: 56, Height: 56}},
		{"DSM at 1.5 m", "annarbor-dsm-2ft.tif", []string{"-tr", "4.92126", "4.92126", "-r", "bilinear"}, heightmap.Window{Col: 77, Row: 91, Width: 56, Height: 56}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, _ := testdem.Path(t, tc.src, heightmap.Window{Col: 100, Row: 100, Width: 1, Height: 1})
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".tif")
			if o, err := exec.Command("gdalwarp", append(append([]string{"-q", "-overwrite"}, tc.args...), src, out)...).CombinedOutput(); err != nil {
				t.Fatalf("gdalwarp: %v\n%s", err, o)
			}
			g, err := heightmap.Load(out, heightmap.Options{Window: tc.win})
			if err != nil {
				t.Fatal(err)
			}
			if g.NodataCount > 0 {
				t.Fatalf("window has %d nodata cells", g.NodataCount)
			}
			ter := Terrain{Width: g.Width, Height: g.Height, Elev: g.Elev, Dx: g.Dx, Dy: g.Dy}
			p := DefaultParams()
			p.LOS = LOSConservative
			m, err := New(ter, p)
			if err != nil {
				t.Fatal(err)
			}
			w := m.NewWorker()
			lg := losref.Grid{Width: g.Width, Height: g.Height, Elev: g.Elev}
			rng := rand.New(rand.NewPCG(5, 5))
			hidden, falseHidden := 0, 0
			for range 6 {
				oc, or := rng.IntN(g.Width), rng.IntN(g.Height)
				bm, _ := w.Viewshed(oc, or, Bitmap{})
				for r := range g.Height {
					for c := range g.Width {
						if bm.Visible(c, r) {
							continue
						}
						hidden++
						if losref.VisibleSampled(lg, oc, or, c, r, 1.8, 1.8, 16) {
							falseHidden++
						}
					}
				}
			}
			t.Logf("%s (%.3g × %.3g m cells): %d cells hidden for 6 observers, %d visible by exact line of sight", tc.name, g.Dx, g.Dy, hidden, falseHidden)
			if falseHidden != 0 || hidden == 0 {
				t.Errorf("%d of %d hidden cells are exactly visible", falseHidden, hidden)
			}
		})
	}
}

// TestConservativeBytes: the conservative mode's tables on the urban
// crop whole (384², a full segment table) and on a small crop stay within
// conservativeLines.tableBytes, and the segment table holds every step it claims.
func TestConservativeBytes(t *testing.T) {
	for _, ter := range []Terrain{
		loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 100, Row: 100, Width: 384, Height: 384}),
		cropWindow(t, "hgt-130x110", 0, 0, 40, 30),
	} {
		p := DefaultParams()
		p.LOS = LOSConservative
		m, err := New(ter, p)
		if err != nil {
			t.Fatal(err)
		}
		m.segTable()
		used := 4*int64(len(m.consG2)+len(m.consTop)+len(m.consOff)) + int64(unsafe.Sizeof(consSeg{}))*int64(len(m.consTab))
		if bound := (conservativeLines{}).tableBytes(ter.Width, ter.Height, p.Sectors); used > bound || len(m.consTab) > consTableSegs {
			t.Errorf("%d×%d: tables take %d bytes (%d segments), tableBytes says %d", ter.Width, ter.Height, used, len(m.consTab), bound)
		}
		var scratch []consSeg
		for k := range p.Sectors {
			for i := 1; i <= m.consL && i <= int(m.secMax[k]); i += 7 {
				got, _, _, _ := m.consStep(k, i, &scratch)
				want := m.consChord(k, i, nil)
				if !slices.Equal(got, want) {
					t.Fatalf("%d×%d: sector %d step %d: the table holds %v, the geometry %v", ter.Width, ter.Height, k, i, got, want)
				}
			}
		}
		t.Logf("%d×%d: segment table to step %d, %d segments, %d bytes in all", ter.Width, ter.Height, m.consL, len(m.consTab), used)
	}
}

// TestExitMax: the largest distance from a cell's centre to its edge over a
// range of azimuths, against a dense sampling of the range, for square and
// oblong cells and ranges across the axes and the corners' directions; and
// the margins it gives: square cells never need a whole-step shift.
func TestExitMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 2000 {
		dx, dy := 1.0, 1.0
		if trial%2 == 1 {
			dx, dy = 0.5+rng.Float64()*3, 0.5+rng.Float64()*3
		}
		a0 := rng.Float64() * 2 * math.Pi
		a1 := a0 + rng.Float64()*math.Pi/4
		got := exitMax(a0, a1, dx, dy)
		var want float64
		for i := 0; i <= 4000; i++ {
			a := a0 + (a1-a0)*float64(i)/4000
			want = max(want, min(0.5*dx/math.Abs(math.Sin(a)), 0.5*dy/math.Abs(math.Cos(a))))
		}
		if got < want-1e-12 || got > want*(1+1e-3) { // the sampling can miss a corner's peak by its step
			t.Fatalf("cells %g×%g, azimuths %g…%g: exitMax %g, sampled %g", dx, dy, a0, a1, got, want)
		}
	}
	for _, dxdy := range [][2]float64{{30, 30}, {0.61, 0.61}, {66.1, 92.6}} {
		for _, S := range []int{8, 256, 1024} {
			ter := Terrain{Width: 9, Height: 9, Dx: dxdy[0], Dy: dxdy[1], Elev: make([]float32, 81)}
			m, err := New(ter, Params{Sectors: S, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSConservative})
			if err != nil {
				t.Fatal(err)
			}
			for k := range S {
				width := 2 * math.Pi / float64(S)
				exit := exitMax(m.sectorAzimuth(k), m.sectorAzimuth(k)+width, dxdy[0], dxdy[1])
				// The slot rule counts steps half a step before the target; the
				// pull and shift must cover the exit.
				if reach := (marginSteps+float64(m.consShift[k]))*m.secStep[k] + float64(m.consPull[k]); reach < exit {
					t.Fatalf("%g×%g m, S=%d, sector %d: arcs %g m before a target, its cell reaches %g m", dxdy[0], dxdy[1], S, k, reach, exit)
				}
				if dxdy[0] == dxdy[1] && m.consShift[k] != 0 {
					t.Errorf("square cells, S=%d, sector %d: shifted %d steps", S, k, m.consShift[k])
				}
			}
		}
	}
}
