package horizon

import (
	"math"
	"math/rand/v2"
	"testing"

	"frontiersets/heightmap"
)

// TestEarlyStopKeepsProfiles: every profile slot a cell can read is the same
// whether the lines stop early (bound from the rest of the line) or are
// walked to the grid's edge, on both real terrains, with and without Earth
// curvature.
func TestEarlyStopKeepsProfiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		win    heightmap.Window
		curved bool
	}{
		{"N44W072.hgt", heightmap.Window{Col: 600, Row: 650, Width: 200, Height: 150}, false},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 100, Row: 100, Width: 180, Height: 180}, false},
		{"N44W072.hgt", heightmap.Window{Col: 100, Row: 100, Width: 130, Height: 170}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ter := loadWindow(t, tc.name, tc.win)
			p := DefaultParams()
			p.EarthCurvature, p.Refraction = tc.curved, 0.13
			m, err := New(ter, p)
			if err != nil {
				t.Fatal(err)
			}
			w := m.NewWorker()
			full := make([]float32, len(w.prof))
			inf := make([]float32, len(w.suf))
			for i := range inf {
				inf[i] = float32(math.Inf(1))
			}
			rng := rand.New(rand.NewPCG(5, 6))
			walked, total := 0, 0
			for range 40 {
				col, row := rng.IntN(ter.Width), rng.IntN(ter.Height)
				w.walk(col, row)
				for k := range w.n {
					start, n := int(m.lineStart[k]), m.steps(k, col, row)
					a0 := row*ter.Width + col + int(m.secMajor[k])
					if m.secDrop == nil {
						walkLine(full[start+1:start+1+n], m.recip[1:n+1], ter.Elev, inf, a0, int(m.secMajor[k]), int(m.secMinor[k]), m.secSlope[k], w.eye, m.secInv[k])
					} else {
						walkLineCurved(full[start+1:start+1+n], m.recip[1:n+1], ter.Elev, inf, a0, int(m.secMajor[k]), int(m.secMinor[k]), m.secSlope[k], w.eye, m.secInv[k], m.secDrop[k])
					}
					for j := 1; j <= n; j++ {
						got := w.prof[start+min(j, int(w.n[k]))]
						if got != full[start+j] {
							t.Fatalf("observer (%d,%d) sector %d step %d: %v after an early stop at %d, %v walked in full", col, row, k, j, got, w.n[k], full[start+j])
						}
					}
					walked += int(w.n[k])
					total += n
				}
			}
			t.Logf("walked %.1f%% of the steps", 100*float64(walked)/float64(total))
			if walked == total {
				t.Errorf("no line stopped early")
			}
		})
	}
}
