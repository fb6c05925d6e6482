package quadtree

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

var geometries = [][2]int{{1, 1}, {2, 2}, {5, 3}, {3, 5}, {37, 61}, {64, 64}, {100, 7}, {65, 33}}

// blobs returns a bitmap of random visible and hidden rectangles over a
// random background: homogeneous regions like real PVSs have.
func blobs(rng *rand.Rand, w, h int) horizon.Bitmap {
	b := horizon.NewBitmap(w, h)
	bg := rng.IntN(2) == 0
	for r := range h {
		for c := range w {
			b.Set(c, r, bg)
		}
	}
	for range rng.IntN(8) {
		x0, y0 := rng.IntN(w), rng.IntN(h)
		x1, y1 := x0+rng.IntN(w-x0)+1, y0+rng.IntN(h-y0)+1
		v := rng.IntN(2) == 0
		for r := y0; r < y1; r++ {
			for c := x0; c < x1; c++ {
				b.Set(c, r, v)
			}
		}
	}
	return b
}

// noise returns a bitmap whose cells are visible with probability p.
func noise(rng *rand.Rand, w, h int, p float64) horizon.Bitmap {
	b := horizon.NewBitmap(w, h)
	for r := range h {
		for c := range w {
			b.Set(c, r, rng.Float64() < p)
		}
	}
	return b
}

func encode(t testing.TB, g Geometry, b horizon.Bitmap) *Tree {
	t.Helper()
	var tr Tree
	if err := NewEncoder(g).Encode(b, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr
}

func equalBitmaps(a, b horizon.Bitmap) bool {
	if a.Width != b.Width || a.Height != b.Height {
		return false
	}
	for i := range a.Words {
		if a.Words[i] != b.Words[i] {
			return false
		}
	}
	return true
}

func orBitmaps(a, b horizon.Bitmap) horizon.Bitmap {
	o := horizon.NewBitmap(a.Width, a.Height)
	for i := range o.Words {
		o.Words[i] = a.Words[i] | b.Words[i]
	}
	return o
}

// quadCells counts the visible and hidden terrain cells of bitmap b in the
// quad of level l at (x, y): the brute-force oracle of quad queries.
func quadCells(g Geometry, b horizon.Bitmap, l, x, y int) (vis, hid int) {
	for r := y << l; r < min((y+1)<<l, g.Height); r++ {
		for c := x << l; c < min((x+1)<<l, g.Width); c++ {
			if b.Visible(c, r) {
				vis++
			} else {
				hid++
			}
		}
	}
	return vis, hid
}

// checkTree checks t against the bitmap it should hold: the expansion, every
// cell and quad query, the hidden count, and a decode of its codes.
func checkTree(t *testing.T, g Geometry, tr *Tree, want horizon.Bitmap) {
	t.Helper()
	var w Walker
	if got := w.Bitmap(g, tr, horizon.Bitmap{}); !equalBitmaps(got, want) {
		t.Fatalf("%d×%d: tree expands to a different bitmap", g.Width, g.Height)
	}
	hidden := g.Width*g.Height - want.CountVisible()
	if n := w.HiddenCells(g, tr); n != hidden {
		t.Errorf("HiddenCells %d, want %d", n, hidden)
	}
	for r := range g.Height {
		for c := range g.Width {
			wantS := Hidden
			if want.Visible(c, r) {
				wantS = Visible
			}
			if s := tr.CellStatus(g, c, r); s != wantS {
				t.Fatalf("cell (%d,%d) %v, want %v", c, r, s, wantS)
			}
		}
	}
	for l := range g.Levels() {
		qc, qr := g.QuadsAcross(l)
		for y := range qr {
			for x := range qc {
				vis, hid := quadCells(g, want, l, x, y)
				s := tr.QuadStatus(g, l, x, y)
				switch {
				case s == Visible && hid > 0, s == Hidden && vis > 0, s == Outside:
					t.Fatalf("quad l%d (%d,%d) %v with %d visible, %d hidden cells", l, x, y, s, vis, hid)
				}
			}
		}
	}
	var d Tree
	if err := FromCodes(g, tr.Codes(), tr.Len(), &d); err != nil {
		t.Fatalf("decode of a built tree: %v", err)
	}
	if err := checkShape(g, tr); err != nil {
		t.Fatalf("shape check of a built tree: %v", err)
	}
	if tr.count(Outside) != tr.Len()-tr.Nodes() {
		t.Fatalf("%d outside codes counted, %d expected", tr.count(Outside), tr.Len()-tr.Nodes())
	}
	if d.Nodes() != tr.Nodes() {
		t.Errorf("decoded %d nodes, built %d", d.Nodes(), tr.Nodes())
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, wh := range geometries {
		g, err := NewGeometry(wh[0], wh[1])
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			b := mixedBitmap(rng, wh[0], wh[1], i)
			checkTree(t, g, encode(t, g, b), b)
		}
	}
}

// mixedBitmap returns the i-th of a cycle of test bitmaps: blobs, even
// noise, sparse noise.
func mixedBitmap(rng *rand.Rand, w, h, i int) horizon.Bitmap {
	switch i % 3 {
	case 0:
		return blobs(rng, w, h)
	case 1:
		return noise(rng, w, h, 0.5)
	}
	return noise(rng, w, h, 0.97)
}

// TestCanonical: uniform bitmaps are one node, and a tree never has an
// Unknown node whose terrain children agree (nothing left to collapse).
func TestCanonical(t *testing.T) {
	g, _ := NewGeometry(37, 61)
	all := horizon.NewBitmap(37, 61)
	if tr := encode(t, g, all); tr.Nodes() != 1 || tr.Root() != Hidden {
		t.Errorf("all hidden: %d nodes, root %v", tr.Nodes(), tr.Root())
	}
	for i := range all.Words {
		all.Words[i] = ^uint64(0)
	}
	all.Words[len(all.Words)-1] &= 1<<(37*61%64) - 1
	if tr := encode(t, g, all); tr.Nodes() != 1 || tr.Root() != Visible {
		t.Errorf("all visible: %d nodes, root %v", tr.Nodes(), tr.Root())
	}
	// One hidden cell costs one node per level plus its three siblings'.
	b := all
	b.Set(20, 30, false) // interior: near the edge, padding lets quads collapse sooner
	if tr := encode(t, g, b); tr.Nodes() != 1+4*g.K-countOutsideOnPath(g, 20, 30) {
		t.Errorf("single hidden cell: %d nodes, K=%d", tr.Nodes(), g.K)
	}
}

// countOutsideOnPath counts the siblings outside the terrain along the
// root-to-cell path of (col,row).
func countOutsideOnPath(g Geometry, col, row int) int {
	n := 0
	for d := 1; d <= g.K; d++ {
		s := g.K - d
		px, py := (col>>s)&^1, (row>>s)&^1
		for k := range 4 {
			if g.outside(quadPos{d, px + k&1, py + k>>1}) {
				n++
			}
		}
	}
	return n
}

func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var m Merger
	var w Walker
	for _, wh := range geometries {
		g, _ := NewGeometry(wh[0], wh[1])
		for i := range 30 {
			a, b := blobs(rng, wh[0], wh[1]), blobs(rng, wh[0], wh[1])
			if i%2 == 1 {
				b = noise(rng, wh[0], wh[1], 0.1)
			}
			ta, tb := encode(t, g, a), encode(t, g, b)
			union := orBitmaps(a, b)
			var ll, ly Tree
			m.Merge(&ll, ta, tb, Lossless)
			checkTree(t, g, &ll, union)
			m.Merge(&ly, ta, tb, Lossy)
			lossy := w.Bitmap(g, &ly, horizon.Bitmap{})
			for j := range union.Words {
				if union.Words[j]&^lossy.Words[j] != 0 {
					t.Fatalf("%d×%d: lossy merge hides a cell the union shows", wh[0], wh[1])
				}
			}
			if ly.Nodes() > ll.Nodes() {
				t.Errorf("lossy merge has %d nodes, lossless %d", ly.Nodes(), ll.Nodes())
			}
		}
	}
}

// TestMergeInto grows an accumulator over many PVSs, as a frontier does.
func TestMergeInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g, _ := NewGeometry(50, 40)
	var m Merger
	acc0 := noise(rng, 50, 40, 0.02)
	acc, spare := encode(t, g, acc0), &Tree{}
	want := acc0
	for range 10 {
		b := noise(rng, 50, 40, 0.02)
		m.MergeInto(acc, spare, encode(t, g, b), Lossless)
		want = orBitmaps(want, b)
	}
	checkTree(t, g, acc, want)
}

// realWorker loads a small window of a real DEM and returns its geometry
// and a visibility worker with the default parameters.
func realWorker(t testing.TB, name string, win heightmap.Window) (Geometry, *horizon.Worker) {
	t.Helper()
	dem := testdem.Any(t, name, win)
	m, err := horizon.New(horizon.Terrain{Width: dem.Width, Height: dem.Height, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}, horizon.ThesisParams())
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewGeometry(dem.Width, dem.Height)
	return g, m.NewWorker()
}

// realPVSs returns viewsheds of a few observers on a small real window.
func realPVSs(t testing.TB, name string, win heightmap.Window, n int) (Geometry, []horizon.Bitmap) {
	t.Helper()
	g, wk := realWorker(t, name, win)
	rng := rand.New(rand.NewPCG(4, 4))
	var out []horizon.Bitmap
	for range n {
		b, err := wk.Viewshed(rng.IntN(g.Width), rng.IntN(g.Height), horizon.Bitmap{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return g, out
}

func TestRealPVSs(t *testing.T) {
	for _, name := range []string{"N44W072.hgt", "annarbor-dsm-2ft.tif"} {
		t.Run(name, func(t *testing.T) {
			g, bms := realPVSs(t, name, heightmap.Window{Col: 300, Row: 300, Width: 60, Height: 50}, 8)
			var m Merger
			for i, b := range bms {
				tr := encode(t, g, b)
				checkTree(t, g, tr, b)
				if i > 0 {
					var u Tree
					m.Merge(&u, encode(t, g, bms[i-1]), tr, Lossless)
					checkTree(t, g, &u, orBitmaps(bms[i-1], b))
				}
			}
		})
	}
}

func TestFromCodesRejects(t *testing.T) {
	g, _ := NewGeometry(5, 3) // K = 3
	rng := rand.New(rand.NewPCG(5, 5))
	good := encode(t, g, noise(rng, 5, 3, 0.5))
	tests := []struct {
		name  string
		codes []uint64
		n     int
	}{
		{"empty", nil, 0},
		{"word count", []uint64{0, 0}, 1},
		{"truncated", good.Codes(), good.Len() - 1},
		{"too long", append([]uint64(nil), good.Codes()...), good.Len() + 1},
		{"unknown cell", []uint64{0xAAAAAAAAAAAAAAAA}, 32},
		{"outside root", []uint64{3}, 1},
		{"inside child marked outside", []uint64{2 | 3<<2 | 3<<4 | 3<<6 | 3<<8}, 5},
		{"stray bits", []uint64{1 | 1<<40}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Tree
			err := FromCodes(g, tc.codes, tc.n, &d)
			if _, ok := err.(*FormatError); !ok {
				t.Errorf("got %v, want a *FormatError", err)
			}
		})
	}
}

func ExampleMerger_Merge() {
	g, _ := NewGeometry(4, 4)
	a, b := horizon.NewBitmap(4, 4), horizon.NewBitmap(4, 4)
	a.Set(0, 0, true) // a sees the north-west cell
	b.Set(3, 3, true) // b sees the south-east cell
	enc := NewEncoder(g)
	var ta, tb, u Tree
	enc.Encode(a, &ta)
	enc.Encode(b, &tb)
	var m Merger
	m.Merge(&u, &ta, &tb, Lossless)
	var w Walker
	fmt.Println(u.CellStatus(g, 0, 0), u.CellStatus(g, 3, 3), u.CellStatus(g, 1, 1), w.HiddenCells(g, &u), u.Nodes())
	// Output: visible visible hidden 14 13
}

func TestQuadCount(t *testing.T) {
	g, _ := NewGeometry(316, 316)
	if n := g.QuadCount(); n != 133200 {
		t.Errorf("316×316: %d quads, want 133,200", n)
	}
	g, _ = NewGeometry(5, 3)
	if n, cells := g.QuadCount(), len(g.MortonCells(nil)); n != 15+6+2+1 || cells != 15 {
		t.Errorf("5×3: %d quads, %d cells", n, cells)
	}
}

// TestHierarchy builds the hierarchical PVS of a small non-power-of-two real
// window and checks that every quad's PVS is exactly the OR of its cells'
// viewsheds (lossless) and that the builder insists on Morton order.
func TestHierarchy(t *testing.T) {
	for name, win := range map[string]heightmap.Window{
		"N44W072.hgt":          {Col: 700, Row: 700, Width: 21, Height: 13},
		"annarbor-dsm-2ft.tif": {Col: 400, Row: 350, Width: 21, Height: 13},
	} {
		t.Run(name, func(t *testing.T) {
			dem := testdem.Load(t, name, win, heightmap.Options{})
			m, _ := horizon.New(horizon.Terrain{Width: dem.Width, Height: dem.Height, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}, horizon.ThesisParams())
			wk := m.NewWorker()
			g, _ := NewGeometry(dem.Width, dem.Height)
			cells := make([]horizon.Bitmap, dem.Width*dem.Height)
			h := NewHierarchy(g)
			b := NewHierarchyBuilder(g, func(l, x, y int, t *Tree) error { h.Set(l, x, y, t); return nil })
			enc := NewEncoder(g)
			var tr Tree
			if err := b.Add(1, 0, &tr); err == nil {
				t.Error("out-of-order cell accepted")
			}
			for _, c32 := range b.Order() {
				c := [2]int{int(c32[0]), int(c32[1])}
				if b.Done() {
					t.Fatal("done before the last cell")
				}
				bm, _ := wk.Viewshed(c[0], c[1], horizon.Bitmap{})
				cells[c[1]*dem.Width+c[0]] = bm
				enc.Encode(bm, &tr)
				if err := b.Add(c[0], c[1], &tr); err != nil {
					t.Fatal(err)
				}
			}
			if !b.Done() {
				t.Fatal("not done after the last cell")
			}
			if h.Quads() != g.QuadCount() {
				t.Fatalf("%d quads, want %d", h.Quads(), g.QuadCount())
			}
			for l := range g.Levels() {
				qc, qr := g.QuadsAcross(l)
				for y := range qr {
					for x := range qc {
						want := horizon.NewBitmap(g.Width, g.Height)
						for r := y << l; r < min((y+1)<<l, g.Height); r++ {
							for c := x << l; c < min((x+1)<<l, g.Width); c++ {
								want = orBitmaps(want, cells[r*g.Width+c])
							}
						}
						tr := h.PVS(h.QuadIndex(l, x, y))
						checkTree(t, g, &tr, want)
						var canon Tree
						NewEncoder(g).Encode(want, &canon)
						if tr.Nodes() != canon.Nodes() {
							t.Errorf("quad l%d (%d,%d): %d nodes, canonical %d", l, x, y, tr.Nodes(), canon.Nodes())
						}
					}
				}
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	g, _ := NewGeometry(33, 20)
	var m Merger
	var z Normalizer
	for range 50 {
		a, b := blobs(rng, 33, 20), blobs(rng, 33, 20)
		var u, n, canon Tree
		m.Merge(&u, encode(t, g, a), encode(t, g, b), Lossless)
		z.Normalize(&n, &u)
		union := orBitmaps(a, b)
		checkTree(t, g, &n, union)
		NewEncoder(g).Encode(union, &canon)
		if n.Nodes() != canon.Nodes() || n.Nodes() > u.Nodes() {
			t.Fatalf("normalised %d nodes, canonical %d, merged %d", n.Nodes(), canon.Nodes(), u.Nodes())
		}
	}
}

// TestAnyVisible compares AnyVisible with the expanded bitmap on random
// rectangular regions.
func TestAnyVisible(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	var w Walker
	var stack []uint64
	for _, wh := range geometries {
		g, _ := NewGeometry(wh[0], wh[1])
		for range 30 {
			b := blobs(rng, wh[0], wh[1])
			tr := encode(t, g, b)
			bm := w.Bitmap(g, tr, horizon.Bitmap{})
			x0, y0 := rng.IntN(wh[0]), rng.IntN(wh[1])
			x1, y1 := x0+rng.IntN(wh[0]-x0)+1, y0+rng.IntN(wh[1]-y0)+1
			want := false
			for r := y0; r < y1; r++ {
				for c := x0; c < x1; c++ {
					want = want || bm.Visible(c, r)
				}
			}
			overlaps := func(l, x, y int) bool {
				return x<<l < x1 && (x+1)<<l > x0 && y<<l < y1 && (y+1)<<l > y0
			}
			var got bool
			got, stack = tr.AnyVisible(g, overlaps, stack)
			if got != want {
				t.Fatalf("%d×%d region [%d,%d)×[%d,%d): AnyVisible %v, want %v", wh[0], wh[1], x0, x1, y0, y1, got, want)
			}
		}
	}
}
