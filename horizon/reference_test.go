package horizon

import "math"

// exactVisible is the slow line-of-sight reference: the segment from the
// observer's eye (ground + hObs at (oc,or)) to the target's top (ground + tau
// at (tc,tr)) is sampled at half-cell steps against the bilinearly
// interpolated surface through the cell centres; samples inside the two end
// cells are skipped. The target is visible when no sample of the surface
// rises above the segment. With hObs == tau it is symmetric.
func exactVisible(t Terrain, oc, or, tc, tr int, hObs, tau float64) bool {
	dc, dr := tc-oc, tr-or
	if dc == 0 && dr == 0 {
		return true
	}
	z0 := float64(t.Elev[or*t.Width+oc]) + hObs
	z1 := float64(t.Elev[tr*t.Width+tc]) + tau
	n := 2 * max(abs(dc), abs(dr))
	for i := 1; i < n; i++ {
		f := float64(i) / float64(n)
		x, y := float64(oc)+f*float64(dc), float64(or)+f*float64(dr)
		rx, ry := int(math.Round(x)), int(math.Round(y))
		if (rx == oc && ry == or) || (rx == tc && ry == tr) {
			continue
		}
		if bilinear(t, x, y) > z0+f*(z1-z0) {
			return false
		}
	}
	return true
}

// bilinear interpolates the terrain at fractional cell coordinates (x,y).
func bilinear(t Terrain, x, y float64) float64 {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	x1, y1 := min(x0+1, t.Width-1), min(y0+1, t.Height-1)
	fx, fy := x-float64(x0), y-float64(y0)
	z := func(c, r int) float64 { return float64(t.Elev[r*t.Width+c]) }
	a := z(x0, y0) + fx*(z(x1, y0)-z(x0, y0))
	b := z(x0, y1) + fx*(z(x1, y1)-z(x0, y1))
	return a + fy*(b-a)
}

// exactBitmap computes the reference visibility of every cell from (oc,or).
func exactBitmap(t Terrain, oc, or int, hObs, tau float64) Bitmap {
	b := NewBitmap(t.Width, t.Height)
	for r := range t.Height {
		for c := range t.Width {
			if exactVisible(t, oc, or, c, r, hObs, tau) {
				b.Set(c, r, true)
			}
		}
	}
	return b
}

// fidelity compares got with the reference want: misses are truly visible
// cells classified hidden, extra are truly hidden cells classified visible.
type fidelity struct {
	visible, hidden int // cells truly visible / hidden
	misses, extra   int
}

func (f *fidelity) add(got, want Bitmap) {
	for r := range want.Height {
		for c := range want.Width {
			g, w := got.Visible(c, r), want.Visible(c, r)
			switch {
			case w && !g:
				f.misses++
			case !w && g:
				f.extra++
			}
			if w {
				f.visible++
			} else {
				f.hidden++
			}
		}
	}
}

func (f fidelity) missRate() float64  { return float64(f.misses) / float64(max(f.visible, 1)) }
func (f fidelity) extraRate() float64 { return float64(f.extra) / float64(max(f.hidden, 1)) }
