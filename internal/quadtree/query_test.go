package quadtree

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
		x, y := unMorton(k)
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
		if col, row := unMorton(c.want); col != c.col || row != c.row {
			t.Errorf("unMorton(%#x) = %d,%d, want %d,%d", c.want, col, row, c.col, c.row)
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
					t.Fatalf("shared %v: tree %d, quad level %d (%d,%d): %v, want %v", hh.refStart != nil, q, l, x, y, got[k], want)
				}
			}
		}
	}
}

// TestAllHidden compares AllHidden with QuadStatuses on random trees,
// flat and shared, over random quads and over quads all hidden.
func TestAllHidden(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	check := func(g Geometry, tr *Tree, keys []uint64, levels []int8) {
		t.Helper()
		st := make([]Status, len(keys))
		tr.QuadStatuses(g, keys, levels, st)
		want := true
		for _, s := range st {
			want = want && s == Hidden
		}
		if got := tr.AllHidden(g, keys, levels); got != want {
			t.Fatalf("%d×%d, %d quads: AllHidden %v, want %v", g.Width, g.Height, len(keys), got, want)
		}
	}
	hiddenOnly := func(g Geometry, tr *Tree, keys []uint64, levels []int8) ([]uint64, []int8) {
		st := make([]Status, len(keys))
		tr.QuadStatuses(g, keys, levels, st)
		var k2 []uint64
		var l2 []int8
		for i, s := range st {
			if s == Hidden {
				k2, l2 = append(k2, keys[i]), append(l2, levels[i])
			}
		}
		return k2, l2
	}
	for _, wh := range geometries {
		g, _ := NewGeometry(wh[0], wh[1])
		for range 20 {
			tr := encode(t, g, blobs(rng, wh[0], wh[1]))
			for _, n := range []int{0, 1, 3, 40} {
				keys, levels := randomQuads(rng, g, n)
				check(g, tr, keys, levels)
				keys, levels = hiddenOnly(g, tr, keys, levels)
				check(g, tr, keys, levels)
			}
		}
	}
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 96)
	s, _, err := h.Share(ShareOptions{MinCodes: 5})
	if err != nil {
		t.Fatal(err)
	}
	for q := 0; q < h.Quads(); q += 13 {
		for _, hh := range []*Hierarchy{h, s} {
			tr := hh.PVS(q)
			keys, levels := randomQuads(rng, h.G, 30)
			check(h.G, &tr, keys, levels)
			keys, levels = hiddenOnly(h.G, &tr, keys, levels)
			check(h.G, &tr, keys, levels)
		}
	}
}
