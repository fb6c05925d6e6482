package quadtree

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
)

// realHierarchy bakes the hierarchical PVS of a small real window, each
// tree capped at capCodes codes (0: none) as a store's are.
func realHierarchy(t testing.TB, name string, win heightmap.Window, capCodes int) *Hierarchy {
	t.Helper()
	g, wk := realWorker(t, name, win)
	h := NewHierarchy(g)
	var c Capper
	var capped Tree
	b := NewHierarchyBuilder(g, func(l, x, y int, t *Tree) error {
		if capCodes > 0 && t.Len() > capCodes {
			if err := c.CapCodes(&capped, t, capCodes); err != nil {
				return err
			}
			t = &capped
		}
		h.Set(l, x, y, t)
		return nil
	})
	enc := NewEncoder(g)
	var tr Tree
	var bm horizon.Bitmap
	var err error
	for _, cell32 := range b.Order() {
		cell := [2]int{int(cell32[0]), int(cell32[1])}
		if bm, err = wk.Viewshed(cell[0], cell[1], bm); err != nil {
			t.Fatal(err)
		}
		enc.Encode(bm, &tr)
		if err := b.Add(cell[0], cell[1], &tr); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// checkShared compares every tree of the shared hierarchy s with h's:
// expanded codes and node counts, the status of every quad, unions,
// lossless merges and AnyVisible over random regions.
func checkShared(t *testing.T, h, s *Hierarchy, rng *rand.Rand) {
	t.Helper()
	g := h.G
	var (
		ex          Tree
		q           []cursor
		m           Merger
		u1, u2      Union
		ma, mb, acc Tree
		stack       []uint64
	)
	u1.Reset(g)
	u2.Reset(g)
	first := h.PVS(0)
	acc = first.Clone()
	for i := range h.Quads() {
		a, b := h.PVS(i), s.PVS(i)
		q = b.expand(&ex, q)
		if !equalTrees(&a, &ex) || b.Nodes() != a.Nodes() || b.Root() != a.Root() {
			t.Fatalf("quad %d: expands to %d codes, %d nodes, root %v; want %d, %d, %v", i, ex.Len(), b.Nodes(), b.Root(), a.Len(), a.Nodes(), a.Root())
		}
		if i%7 == 0 {
			keys, levels := randomQuads(rng, g, 50)
			checkStatuses(t, g, &b, keys, levels)
			for l := range g.Levels() {
				qc, qr := g.QuadsAcross(l)
				for y := range qr {
					for x := range qc {
						if got, want := b.QuadStatus(g, l, x, y), a.QuadStatus(g, l, x, y); got != want {
							t.Fatalf("quad %d: level %d (%d,%d) %v, want %v", i, l, x, y, got, want)
						}
					}
				}
			}
		}
		if i%5 == 0 {
			u1.Add(&a)
			u2.Add(&b)
			m.Merge(&ma, &acc, &a, Lossy)
			m.Merge(&mb, &acc, &b, Lossy)
			if !equalTrees(&ma, &mb) {
				t.Fatalf("quad %d: lossy merges differ", i)
			}
			m.Merge(&mb, &acc, &b, Lossless)
			acc, mb = mb, acc
			x0, y0 := rng.IntN(g.Width), rng.IntN(g.Height)
			x1, y1 := x0+rng.IntN(4)+1, y0+rng.IntN(4)+1
			overlaps := func(l, x, y int) bool {
				return x<<l < x1 && (x+1)<<l > x0 && y<<l < y1 && (y+1)<<l > y0
			}
			var va, vb bool
			va, stack = a.AnyVisible(g, overlaps, stack)
			vb, stack = b.AnyVisible(g, overlaps, stack)
			if va != vb {
				t.Fatalf("quad %d: AnyVisible %v, flat %v", i, vb, va)
			}
		}
	}
	for l := range g.Levels() {
		qc, qr := g.QuadsAcross(l)
		for y := range qr {
			for x := range qc {
				if a, b := u1.QuadStatus(l, x, y), u2.QuadStatus(l, x, y); a != b {
					t.Fatalf("union: level %d (%d,%d) %v, flat %v", l, x, y, b, a)
				}
			}
		}
	}
}

func TestShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	for _, name := range []string{"N44W072.hgt", "annarbor-dsm-2ft.tif"} {
		for _, capCodes := range []int{0, 96} {
			h := realHierarchy(t, name, heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, capCodes)
			for _, minCodes := range []int{5, 24} {
				t.Run(name, func(t *testing.T) {
					s, st, err := h.Share(ShareOptions{MinCodes: minCodes})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("cap %d, min %d: %+v", capCodes, minCodes, st)
					// On so small a window the reference index costs about
					// what sharing saves; the bytes are only checked to be
					// those of the result.
					if st.Subtrees == 0 || st.Refs < 2*st.Subtrees || st.CodesKept >= st.CodesFlat || int64(s.Bytes()) != st.BytesShare || int64(h.Bytes()) != st.BytesFlat {
						t.Fatalf("cap %d, min %d: %+v, %d bytes", capCodes, minCodes, st, s.Bytes())
					}
					checkShared(t, h, s, rng)
					// A reader's check of the same arrays passes.
					s.ranks = nil
					if err := s.BuildRanks(); err != nil {
						t.Fatal(err)
					}
					if _, _, err := s.Share(ShareOptions{}); err == nil {
						t.Error("a shared hierarchy shared again")
					}
				})
			}
		}
	}
}

// TestShareIdentical: a hierarchy whose trees are all the same tree keeps
// one copy, and every quad is a single reference.
func TestShareIdentical(t *testing.T) {
	g, _ := NewGeometry(16, 16)
	bm := horizon.NewBitmap(16, 16)
	for i := range 256 {
		if (i*7919)%5 < 2 {
			bm.Words[i>>6] |= 1 << (i & 63)
		}
	}
	tr := encode(t, g, bm)
	h := NewHierarchy(g)
	for l := range g.Levels() {
		cols, rows := g.QuadsAcross(l)
		for y := range rows {
			for x := range cols {
				h.Set(l, x, y, tr)
			}
		}
	}
	s, st, err := h.Share(ShareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Subtrees != 1 || st.Refs != h.Quads() || st.CodesKept != int64(h.Quads()+tr.Len()) || st.BytesShare*2 > st.BytesFlat {
		t.Fatalf("%+v for %d quads of %d codes", st, h.Quads(), tr.Len())
	}
	checkShared(t, h, s, rand.New(rand.NewPCG(1, 1)))
}

// TestShareRejects corrupts a shared hierarchy's references in the ways a
// reader must catch.
func TestShareRejects(t *testing.T) {
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
	s, st, err := h.Share(ShareOptions{})
	if err != nil || st.Subtrees < 2 {
		t.Fatalf("%+v, %v", st, err)
	}
	nq := s.Quads()
	// A shared subtree with references, and a quad with two or more.
	sub := -1
	for i := nq + 1; i < nq+s.shared; i++ {
		if s.refStart[i] < s.refStart[i+1] {
			sub = i
			break
		}
	}
	quad := -1
	for i := range nq {
		if s.refStart[i]+1 < s.refStart[i+1] {
			quad = i
			break
		}
	}
	if sub < 0 || quad < 0 {
		t.Fatalf("no nested reference (%d) or quad with two (%d)", sub, quad)
	}
	clone := func() *Hierarchy {
		c := *s
		c.refs = slices.Clone(s.refs)
		c.refStart, c.nodeCount = slices.Clone(s.refStart), slices.Clone(s.nodeCount)
		c.ranks = nil
		return &c
	}
	cases := map[string]func(c *Hierarchy){
		"reference out of order": func(c *Hierarchy) {
			j := c.refStart[quad]
			c.refs[j], c.refs[j+1] = c.refs[j+1], c.refs[j]
		},
		"reference on a visible code": func(c *Hierarchy) { setRef(c, quad, 0, -1) },
		"reference past the tree":     func(c *Hierarchy) { setRef(c, quad, int(c.lens[quad]), -1) },
		"cycle":                       func(c *Hierarchy) { setRef(c, sub, -1, sub-nq) },
		"unknown subtree":             func(c *Hierarchy) { setRef(c, quad, -1, c.shared) },
		"too few bits":                func(c *Hierarchy) { c.refBits = 0 },
		"node count":                  func(c *Hierarchy) { c.nodeCount[quad]++ },
		"reference index":             func(c *Hierarchy) { c.refStart = c.refStart[:len(c.refStart)-1] },
		"starts decreasing":           func(c *Hierarchy) { c.refStart[quad+1] = c.refStart[quad] - 1 },
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			c := clone()
			corrupt(c)
			if err := c.BuildRanks(); err == nil {
				t.Error("accepted")
			} else {
				t.Log(err)
			}
		})
	}
	// Too deep: a reference whose subtree would reach below the cells.
	// levels returns each level's first code and the end of t.
	levels := func(t *Tree) []int {
		lv := []int{0}
		for start, size := 0, 1; start < t.n && size > 0; {
			end := start + size
			lv = append(lv, end)
			start, size = end, 4*(t.rankAt(end)-t.rankAt(start))
		}
		return lv
	}
	deep := false
	for i := 0; i < nq && !deep; i++ {
		tr := s.PVS(i)
		lv := levels(&tr)
		for j := s.refStart[i]; j < s.refStart[i+1] && !deep; j++ {
			d, _ := slices.BinarySearch(lv, int(s.refs[j]>>s.refBits)+1)
			d--
			for e := range s.shared {
				sub := s.subtree(e)
				var ex Tree
				sub.expand(&ex, nil)
				if d+len(levels(&ex))-2 > s.G.K {
					c := clone()
					c.refs[j] = c.refs[j]&^(1<<c.refBits-1) | uint32(e)
					err := c.BuildRanks()
					if err == nil || !strings.Contains(err.Error(), "levels below") {
						t.Errorf("reference at depth %d to a subtree of %d levels: %v", d, len(levels(&ex))-1, err)
					}
					deep = true
					break
				}
			}
		}
	}
	if !deep {
		t.Error("no reference deep enough to corrupt")
	}
}

// setRef rewrites the first reference of tree i: its code position when
// pos ≥ 0, its shared subtree when e ≥ 0.
func setRef(h *Hierarchy, i, pos, e int) {
	j := h.refStart[i]
	r := h.refs[j]
	if pos >= 0 {
		r = uint32(pos)<<h.refBits | r&(1<<h.refBits-1)
	}
	if e >= 0 {
		r = r&^(1<<h.refBits-1) | uint32(e)
	}
	h.refs[j] = r
}

// TestCapOfCapped: capping a capped tree again at a smaller cap gives the
// tree capped at the smaller cap directly, for both policies and both
// kinds of cap, on real trees: what re-capping a store relies on
// (compress.Recap).
func TestCapOfCapped(t *testing.T) {
	for _, name := range []string{"N44W072.hgt", "annarbor-dsm-2ft.tif"} {
		h := realHierarchy(t, name, heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
		for _, minLoss := range []bool{false, true} {
			c := Capper{MinLoss: minLoss, G: h.G}
			var once, twice, direct Tree
			checked := 0
			for q := 0; q < h.Quads(); q += 3 {
				tr := h.PVS(q)
				for _, codes := range []bool{false, true} {
					size := tr.Nodes()
					if codes {
						size = tr.Len()
					}
					if size < 40 {
						continue
					}
					c1, c2 := size*3/4, size/3
					capAt := func(dst, src *Tree, n int) {
						if codes {
							c.CapCodes(dst, src, n)
						} else {
							c.Cap(dst, src, n)
						}
					}
					capAt(&once, &tr, c1)
					capAt(&twice, &once, c2)
					capAt(&direct, &tr, c2)
					if !equalTrees(&twice, &direct) {
						t.Fatalf("%s quad %d, min-loss %v, codes %v: capped at %d then %d differs from %d directly", name, q, minLoss, codes, c1, c2, c2)
					}
					checked++
				}
			}
			if checked < 100 {
				t.Fatalf("%s: only %d trees checked", name, checked)
			}
		}
	}
}
