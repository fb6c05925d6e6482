package quadpvs

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
)

// randomQuads returns n quads of g (duplicates and nested quads included)
// in QuadStatuses' order: keys ascending, levels descending among equal
// keys.
func randomQuads(rng *rand.Rand, g Geometry, n int) ([]uint64, []int8) {
	type quad struct {
		key uint64
		l   int8
	}
	qs := make([]quad, 0, n)
	for len(qs) < n {
		l := rng.IntN(g.K + 1)
		qc, qr := g.QuadsAcross(l)
		x, y := rng.IntN(qc), rng.IntN(qr)
		qs = append(qs, quad{MortonCode(x<<l, y<<l), int8(l)})
		if rng.IntN(4) == 0 {
			qs = append(qs, qs[len(qs)-1]) // the same quad twice
		}
	}
	slices.SortFunc(qs, func(a, b quad) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(b.l, a.l)) })
	keys, levels := make([]uint64, len(qs)), make([]int8, len(qs))
	for i, q := range qs {
		keys[i], levels[i] = q.key, q.l
	}
	return keys, levels
}

// checkStatuses compares QuadStatuses with one QuadStatus per quad.
func checkStatuses(t *testing.T, g Geometry, tr *Tree, keys []uint64, levels []int8) {
	t.Helper()
	got := make([]Status, len(keys))
	tr.QuadStatuses(g, keys, levels, got)
	for i, k := range keys {
		l := int(levels[i])
		x, y := 0, 0
		for b := range 32 {
			x |= int(k>>(2*b)&1) << b
			y |= int(k>>(2*b+1)&1) << b
		}
		if want := tr.QuadStatus(g, l, x>>l, y>>l); got[i] != want {
			t.Fatalf("%d×%d: quad %d of %d, level %d at cell (%d,%d): %v, want %v", g.Width, g.Height, i, len(keys), l, x, y, got[i], want)
		}
	}
}

func TestQuadStatuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	for _, wh := range geometries {
		g, _ := NewGeometry(wh[0], wh[1])
		for range 20 {
			tr := encode(t, g, blobs(rng, wh[0], wh[1]))
			for _, n := range []int{0, 1, 2, 7, 200} {
				keys, levels := randomQuads(rng, g, n)
				checkStatuses(t, g, tr, keys, levels)
			}
		}
	}
}

func TestMortonCode(t *testing.T) {
	for _, c := range []struct {
		col, row int
		want     uint64
	}{{0, 0, 0}, {1, 0, 1}, {0, 1, 2}, {1, 1, 3}, {2, 0, 4}, {3, 5, 0b100111}, {1<<32 - 1, 0, 0x5555555555555555}, {0, 1<<32 - 1, 0xaaaaaaaaaaaaaaaa}} {
		if got := MortonCode(c.col, c.row); got != c.want {
			t.Errorf("MortonCode(%d,%d) = %#x, want %#x", c.col, c.row, got, c.want)
		}
	}
}

// TestQuadStatusIn compares QuadStatusIn, side by side over many trees,
// with one QuadStatus per tree, on a real hierarchy, flat and shared.
func TestQuadStatusIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 96)
	s, _, err := h.Share(ShareOptions{MinCodes: 5})
	if err != nil {
		t.Fatal(err)
	}
	g := h.G
	for _, hh := range []*Hierarchy{h, s} {
		for range 300 {
			trees := make([]int32, rng.IntN(40))
			for k := range trees {
				trees[k] = int32(rng.IntN(h.Quads()))
			}
			l := rng.IntN(g.K + 1)
			qc, qr := g.QuadsAcross(l)
			x, y := rng.IntN(qc), rng.IntN(qr)
			got := make([]Status, len(trees))
			hh.QuadStatusIn(trees, l, x, y, got)
			for k, q := range trees {
				tr := hh.PVS(int(q))
				if want := tr.QuadStatus(g, l, x, y); got[k] != want {
					t.Fatalf("shared %v: tree %d, quad level %d (%d,%d): %v, want %v", hh.RefStart != nil, q, l, x, y, got[k], want)
				}
			}
		}
	}
}
