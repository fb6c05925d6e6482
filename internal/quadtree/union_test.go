package quadtree

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
)

// checkUnion compares every quad's status in u with a count of the visible
// and hidden terrain cells of want (the oracle) and with the normalized
// lossless merge tree ref.
func checkUnion(t *testing.T, g Geometry, u *Union, want horizon.Bitmap, ref *Tree) {
	t.Helper()
	for l := range g.Levels() {
		qc, qr := g.QuadsAcross(l)
		for y := range qr {
			for x := range qc {
				vis, hid := quadCells(g, want, l, x, y)
				exp := Unknown
				switch {
				case vis == 0:
					exp = Hidden
				case hid == 0:
					exp = Visible
				}
				if s := u.QuadStatus(l, x, y); s != exp {
					t.Fatalf("%d×%d quad l%d (%d,%d): %v with %d visible, %d hidden cells", g.Width, g.Height, l, x, y, s, vis, hid)
				}
				if s := ref.QuadStatus(g, l, x, y); s != exp {
					t.Fatalf("%d×%d quad l%d (%d,%d): normalized merge says %v, want %v", g.Width, g.Height, l, x, y, s, exp)
				}
			}
		}
	}
}

// unionFold adds the same bitmaps to a Union, to a lossless merge tree and
// to their bitmap OR, then checks the three agree.
type unionFold struct {
	g          Geometry
	u          Union
	m          Merger
	z          Normalizer
	acc, spare *Tree
	norm       Tree
	want       horizon.Bitmap
}

func (f *unionFold) reset(t *testing.T, g Geometry) {
	f.g = g
	f.u.Reset(g)
	f.want = horizon.NewBitmap(g.Width, g.Height)
	f.acc, f.spare = encode(t, g, f.want), &Tree{}
}

func (f *unionFold) add(t *testing.T, b horizon.Bitmap) {
	tr := encode(t, f.g, b)
	f.u.Add(tr)
	f.m.MergeInto(f.acc, f.spare, tr, Lossless)
	f.want = orBitmaps(f.want, b)
}

func (f *unionFold) check(t *testing.T) {
	t.Helper()
	f.z.Normalize(&f.norm, f.acc)
	checkUnion(t, f.g, &f.u, f.want, &f.norm)
}

// TestUnion folds random PVSs into a Union and into a lossless merge tree,
// through Reset and changes of geometry on one Union.
func TestUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	var f unionFold
	for _, wh := range append(geometries, [2]int{200, 130}, [2]int{513, 3}) {
		g, _ := NewGeometry(wh[0], wh[1])
		for round := range 3 {
			f.reset(t, g)
			for i := range 1 + round*3 {
				b := blobs(rng, wh[0], wh[1])
				if i%2 == 1 {
					b = noise(rng, wh[0], wh[1], 0.05)
				}
				f.add(t, b)
				f.check(t)
			}
		}
	}
}

// TestUnionRealPVSs folds viewsheds of a real window.
func TestUnionRealPVSs(t *testing.T) {
	g, bms := realPVSs(t, "N44W072.hgt", heightmap.Window{Col: 800, Row: 800, Width: 90, Height: 70}, 12)
	var f unionFold
	f.reset(t, g)
	for _, b := range bms {
		f.add(t, b)
	}
	f.check(t)
}

// TestUnionResetClears: after Reset a used Union holds exactly what a new
// one does, though Reset clears only the words its trees painted.
func TestUnionResetClears(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for _, wh := range [][2]int{{200, 130}, {513, 3}, {64, 64}} {
		g, _ := NewGeometry(wh[0], wh[1])
		var used, fresh Union
		used.Reset(g)
		for range 5 {
			used.Add(encode(t, g, blobs(rng, wh[0], wh[1])))
			used.Add(encode(t, g, noise(rng, wh[0], wh[1], 0.05)))
		}
		used.Reset(g)
		fresh.Reset(g)
		for s := range used.any {
			if !slices.Equal(used.any[s], fresh.any[s]) || !slices.Equal(used.full[s], fresh.full[s]) {
				t.Fatalf("%v: stage %d differs from a new union's after Reset", wh, s)
			}
		}
		for p, page := range used.any0 {
			if slices.ContainsFunc(page, func(w uint64) bool { return w != 0 }) {
				t.Fatalf("%v: page %d of stage 0 not cleared by Reset", wh, p)
			}
		}
	}
}

// TestUnionStripMemory: a union over a 16384×1 strip (a square of 2^28
// cells) holds memory for the strip's blocks, not the square's.
func TestUnionStripMemory(t *testing.T) {
	g, _ := NewGeometry(16384, 1)
	b := horizon.NewBitmap(16384, 1)
	for c := 0; c < 16384; c += 3 {
		b.Set(c, 0, true)
	}
	var u Union
	u.Reset(g)
	u.Add(encode(t, g, b))
	bytes := 0
	for s := 1; s < len(u.any); s++ {
		bytes += 8 * (len(u.any[s]) + len(u.full[s]) + len(u.full0[s]))
	}
	for p := range u.any0 {
		if u.any0[p] != nil {
			bytes += 2 * 8 << pageShift
		}
	}
	if bytes > 4<<20 {
		t.Errorf("a union over a 16384×1 strip holds %d bytes", bytes)
	}
	for c := range 16384 {
		want := Hidden
		if c%3 == 0 {
			want = Visible
		}
		if got := u.QuadStatus(0, c, 0); got != want {
			t.Fatalf("cell %d: %v, want %v", c, got, want)
		}
	}
	t.Logf("%d bytes", bytes)
}
