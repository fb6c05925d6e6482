package viewshed

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// blobs returns a bitmap of w×h cells visible inside a few random discs, so
// that its tree has leaves at every level.
func blobs(rng *rand.Rand, w, h int) horizon.Bitmap {
	bm := horizon.NewBitmap(w, h)
	for range 1 + rng.IntN(4) {
		cx, cy, r := rng.IntN(w), rng.IntN(h), 1+rng.IntN(max(w, h)/2+1)
		for y := range h {
			for x := range w {
				if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
					i := y*w + x
					bm.Words[i>>6] |= 1 << (uint(i) & 63)
				}
			}
		}
	}
	return bm
}

// TestCumulativeMatchesBitmaps: the counts equal the sum of the PVSs'
// bitmaps, cell by cell, on square, oblong and odd grids.
func TestCumulativeMatchesBitmaps(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {7, 5}, {16, 16}, {33, 17}, {50, 61}} {
		w, h := sz[0], sz[1]
		g, err := quadpvs.NewGeometry(w, h)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(w), uint64(h)))
		enc := quadpvs.NewEncoder(g)
		c, half := NewCumulative(g), NewCumulative(g)
		want := make([]uint32, w*h)
		var tr quadpvs.Tree
		for k := range 40 {
			bm := blobs(rng, w, h)
			if err := enc.Encode(bm, &tr); err != nil {
				t.Fatal(err)
			}
			if k%2 == 0 {
				c.Add(&tr)
			} else {
				half.Add(&tr)
			}
			for i := range want {
				if bm.Words[i>>6]>>(uint(i)&63)&1 != 0 {
					want[i]++
				}
			}
		}
		if err := c.Merge(half); err != nil {
			t.Fatal(err)
		}
		if c.Observers() != 40 {
			t.Errorf("%d×%d: %d observers, want 40", w, h, c.Observers())
		}
		got := c.Counts(nil)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d×%d: cell %d,%d counted %d, want %d", w, h, i%w, i/w, got[i], want[i])
			}
		}
		if again := c.Counts(got); &again[0] != &got[0] || again[0] != want[0] {
			t.Errorf("%d×%d: Counts did not reuse dst or changed the counts", w, h)
		}
	}
}

func TestMergeRefusesOtherGeometry(t *testing.T) {
	a, _ := quadpvs.NewGeometry(8, 8)
	b, _ := quadpvs.NewGeometry(8, 9)
	if err := NewCumulative(a).Merge(NewCumulative(b)); err == nil {
		t.Error("merged counts of different grids")
	}
}
