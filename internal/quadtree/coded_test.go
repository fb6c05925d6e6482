package quadtree

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/blockindex"
)

// TestCoded: a coded hierarchy reads every quad's tree as the flat one
// holds it — in random order, through the smallest cache and a larger one,
// from four goroutines at once — and rebuilds from its blocks and written
// table; EachWithParent visits every tree once, each with its parent's.
func TestCoded(t *testing.T) {
	for _, name := range []string{"N44W072.hgt", "annarbor-dsm-2ft.tif"} {
		for _, capCodes := range []int{0, 96} {
			h := realHierarchy(t, name, heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, capCodes)
			for _, cache := range []int64{MinCacheBytes, 64 << 20} {
				c, err := h.Code(cache)
				if err != nil {
					t.Fatal(err)
				}
				if CodingOf(c) == nil || CodingOf(h) != nil || len(c.codes) != 0 {
					t.Fatal("Coding: a coded hierarchy without blocks, or a flat one with some")
				}
				// Rebuilt from what a store holds: the table and the blocks.
				cd := *CodingOf(c)
				if cd.Coder, err = ReadCondTable(cd.Coder.Table()); err != nil {
					t.Fatal(err)
				}
				r, err := NewCoded(h.G, cd)
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				errs := make(chan string, 4)
				for w := range 4 {
					wg.Go(func() {
						rng := rand.New(rand.NewPCG(uint64(w), uint64(cache)))
						for range 3 * h.Quads() {
							q := rng.IntN(h.Quads())
							want, got := h.PVS(q), r.PVS(q)
							if !equalTrees(&want, &got) || got.Nodes() != want.Nodes() || len(got.rank) != len(want.rank) {
								errs <- "quad tree differs from the flat hierarchy's"
								return
							}
						}
					})
				}
				wg.Wait()
				close(errs)
				for e := range errs {
					t.Fatalf("%s cap %d cache %d: %s", name, capCodes, cache, e)
				}
				if r.Err() != nil {
					t.Fatalf("Err after reading good blocks: %v", r.Err())
				}
				if used := r.coded.used.Load(); used > cache {
					t.Errorf("cache holds %d bytes, over its %d", used, cache)
				}
				seen := make([]bool, h.Quads())
				if err := r.EachWithParent(func(q int, tr, p *Tree) error {
					want := h.PVS(q)
					if seen[q] || !equalTrees(&want, tr) {
						return fmt.Errorf("quad %d visited twice or read wrong", q)
					}
					seen[q] = true
					if q != h.Quads()-1 {
						wp := h.PVS(h.parentOf(q))
						if !equalTrees(&wp, p) {
							return fmt.Errorf("quad %d: parent read wrong", q)
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if slices.Contains(seen, false) {
					t.Fatal("EachWithParent missed quads")
				}
				if c.Bytes() <= len(cd.Blocks) {
					t.Errorf("Bytes %d, not above the blocks' %d", c.Bytes(), len(cd.Blocks))
				}
			}
		}
	}
}

// TestCodedEntryBytes: the cache entry size Bytes counts is the real one.
func TestCodedEntryBytes(t *testing.T) {
	if s := unsafe.Sizeof(codedEntry{}); s != codedEntryBytes {
		t.Fatalf("codedEntry takes %d bytes, codedEntryBytes says %d", s, codedEntryBytes)
	}
}

// TestCodedCorrupt: NewCoded refuses indexes and caches it cannot use;
// a damaged block reads as the conservative tree (one Visible node), its
// children too, and Err names the quad and the block's byte; a block
// changed in place never panics and reads either right or conservative.
func TestCodedCorrupt(t *testing.T) {
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 96)
	c, err := h.Code(MinCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	good := *CodingOf(c)
	var fe *FormatError
	bad := func(what string, cd Coded) {
		t.Helper()
		if _, err := NewCoded(h.G, cd); !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError", what, err)
		}
	}
	cd := good
	cd.CacheBytes = MinCacheBytes - 1
	bad("cache below the minimum", cd)
	cd = good
	cd.Index = good.Index[:len(good.Index)-1]
	bad("an index entry short", cd)
	// A pinned block past the blocks' end is refused at open.
	cd = good
	cd.Index = slices.Clone(good.Index)
	top := len(cd.Index) - 1
	cd.Index[top], _ = blockindex.Entry(uint64(len(good.Blocks)), 4)
	bad("the top quad's block past the end", cd)
	// A cell's block cut short reads conservative, and Err says so.
	cell := 0
	for q := range h.LevelStart[1] {
		if _, n := blockindex.At(good.Index[q]); n > 8 {
			cell = q
			break
		}
	}
	cd = good
	cd.Index = slices.Clone(good.Index)
	off, n := blockindex.At(good.Index[cell])
	cd.Index[cell], _ = blockindex.Entry(off, n-1)
	r, err := NewCoded(h.G, cd)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.PVS(cell)
	var te *TreeError
	if !isConservative(&tr) || !errors.As(r.Err(), &te) || te.Quad != cell || te.Region != RegionBlocks || te.Offset < int64(off) || te.Offset > int64(off+n) {
		t.Fatalf("cell %d's block cut: tree of %d codes, Err %v; want the conservative tree and a TreeError in the block", cell, tr.Len(), r.Err())
	}
	// Pinned trees past their bound (maxCodesPerByte per byte of their
	// blocks) open, then read conservative with Err naming a pinned quad
	// (the first decoded past it: pin or an ancestor).
	if r, err = NewCoded(h.G, good); err != nil {
		t.Fatal(err)
	}
	pin := r.coded.pinFrom
	if _, n := blockindex.At(good.Index[pin]); r.coded.pinLimit < maxCodesPerByte*int64(n) {
		t.Fatalf("pinned bound %d codes, below the first pinned block's share", r.coded.pinLimit)
	}
	want := h.PVS(top)
	if tr := r.PVS(top); !equalTrees(&tr, &want) || r.Err() != nil {
		t.Fatalf("top quad: %d codes, Err %v; want its %d codes", tr.Len(), r.Err(), want.Len())
	}
	r.coded.pinLimit = r.coded.pinned.Load()
	if tr := r.PVS(pin); !isConservative(&tr) || !errors.As(r.Err(), &te) || te.Quad < pin {
		t.Fatalf("pinned quad %d over the bound: %d codes, Err %v; want the conservative tree", pin, tr.Len(), r.Err())
	}
	// A level-1 quad's damaged block makes its cells conservative too.
	q1 := h.LevelStart[1]
	cd = good
	cd.Index = slices.Clone(good.Index)
	off, n = blockindex.At(good.Index[q1])
	cd.Index[q1], _ = blockindex.Entry(off, n-1)
	if r, err = NewCoded(h.G, cd); err != nil {
		t.Fatal(err)
	}
	if tr := r.PVS(0); !isConservative(&tr) || r.Err() == nil {
		t.Fatal("a cell under a damaged parent read a tree")
	}
	// Bytes changed in place: read right or conservative, never a panic;
	// most are caught.
	rng := rand.New(rand.NewPCG(3, 3))
	caught := 0
	for range 200 {
		cd = good
		cd.Blocks = slices.Clone(good.Blocks)
		cd.Blocks[rng.IntN(len(cd.Blocks))] ^= byte(1 + rng.IntN(255))
		r, err := NewCoded(h.G, cd)
		if err != nil {
			caught++
			continue
		}
		for q := range h.Quads() {
			got, want := r.PVS(q), h.PVS(q)
			if !isConservative(&got) && !equalTrees(&got, &want) && r.Err() == nil {
				t.Fatalf("quad %d read wrong without an error", q)
			}
		}
		if r.Err() != nil {
			caught++
		}
	}
	if caught < 100 {
		t.Errorf("%d of 200 changed bytes caught, want most", caught)
	}
}

// FuzzCondTable: any table is refused with a *FormatError or read into a
// coder whose table is the input.
func FuzzCondTable(f *testing.F) {
	gs, kids, parents := condPairs(f)
	_ = gs
	tab := condCoderFor(kids, parents, 4).Table()
	f.Add(tab)
	f.Add(tab[:100])
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ReadCondTable(b)
		var fe *FormatError
		if err != nil {
			if !errors.As(err, &fe) {
				t.Fatalf("%v, want a *FormatError", err)
			}
			return
		}
		if !slices.Equal(c.Table(), b) {
			t.Fatal("table read back differs")
		}
	})
}

// BenchmarkCodedPVS reads random quads' trees of a coded hierarchy
// through a cache of 1 MiB, against the flat hierarchy's views.
func BenchmarkCodedPVS(b *testing.B) {
	h := realHierarchy(b, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
	c, err := h.Code(MinCacheBytes)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		h    *Hierarchy
	}{{"flat", h}, {"coded", c}} {
		b.Run(bc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				t := bc.h.PVS(rng.IntN(h.Quads()))
				n += t.Len()
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mcodes/s")
		})
	}
}

// FuzzNewCoded replaces one quad's block of a small coded hierarchy with
// arbitrary bytes: NewCoded refuses it with a *FormatError or accepts it,
// and then every tree reads without a panic, with the shape checkShape
// wants, and either as the flat hierarchy holds it or, with Err set, as
// the conservative tree.
func FuzzNewCoded(f *testing.F) {
	h := realHierarchy(f, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 19, Height: 13}, 64)
	c, err := h.Code(MinCacheBytes)
	if err != nil {
		f.Fatal(err)
	}
	good := *CodingOf(c)
	block := func(q int) []byte { off, n := blockindex.At(good.Index[q]); return good.Blocks[off : off+n] }
	for _, q := range []int{0, 7, h.Quads() - 3} {
		f.Add(uint16(q), slices.Clone(block(q)))
	}
	f.Fuzz(func(t *testing.T, q uint16, b []byte) {
		i := int(q) % h.Quads()
		cd := good
		cd.Blocks = append(slices.Clone(good.Blocks), b...)
		cd.Index = slices.Clone(good.Index)
		cd.Index[i], _ = blockindex.Entry(uint64(len(good.Blocks)), uint64(len(b)))
		r, err := NewCoded(h.G, cd)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%v, want a *FormatError", err)
			}
			return
		}
		for k := range h.Quads() {
			tr := r.PVS(k)
			if err := checkShape(h.G, &tr); err != nil {
				t.Fatalf("quad %d accepted with a bad shape: %v", k, err)
			}
			if want := h.PVS(k); !equalTrees(&tr, &want) && (r.Err() == nil || !isConservative(&tr)) && k != i {
				t.Fatalf("quad %d read wrong", k)
			}
		}
	})
}

// TestLevelAndParent: Level and parentOf agree with the quad layout
// (QuadIndex) for every quad of several geometries, the top quad included.
func TestLevelAndParent(t *testing.T) {
	for _, wh := range [][2]int{{1, 1}, {3, 2}, {13, 9}, {37, 29}, {64, 64}} {
		g, err := NewGeometry(wh[0], wh[1])
		if err != nil {
			t.Fatal(err)
		}
		h := NewHierarchy(g)
		for l := range g.Levels() {
			c, r := g.QuadsAcross(l)
			for y := range r {
				for x := range c {
					q := h.QuadIndex(l, x, y)
					if got := h.Level(q); got != l {
						t.Fatalf("%v: quad %d: level %d, want %d", wh, q, got, l)
					}
					if l < g.K {
						if p := h.parentOf(q); p != h.QuadIndex(l+1, x>>1, y>>1) {
							t.Fatalf("%v: quad %d (l%d %d,%d): parent %d", wh, q, l, x, y, p)
						}
					}
				}
			}
		}
	}
}

// TestCodedDecodesOnce: walking a coded hierarchy (EachWithParent) decodes
// every block once, whatever the cache; reading every quad in index order
// through the smallest cache decodes each block a bounded number of times
// (its ancestors stay cached), not its chain of ancestors every time —
// the round-3 audit's 60 s store, read with a cache of one tree.
func TestCodedDecodesOnce(t *testing.T) {
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
	c, err := h.Code(MinCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	cd := *CodingOf(c)
	r, _ := NewCoded(h.G, cd)
	if err := r.EachWithParent(func(int, *Tree, *Tree) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := r.coded.decodes.Load(); n != int64(h.Quads()) {
		t.Fatalf("EachWithParent decoded %d blocks for %d quads", n, h.Quads())
	}
	r, _ = NewCoded(h.G, cd)
	for q := range h.Quads() {
		r.PVS(q)
	}
	if n := r.coded.decodes.Load(); n > 2*int64(h.Quads()) {
		t.Errorf("reading every quad in index order decoded %d blocks for %d quads", n, h.Quads())
	}
	t.Logf("%d quads: %d decodes reading each once in index order with a cache of %d bytes", h.Quads(), r.coded.decodes.Load(), MinCacheBytes)
}
