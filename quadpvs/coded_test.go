package quadpvs

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/frontiersets/frontiersets/heightmap"
)

// TestCoded: a coded hierarchy reads every quad's tree as the flat one
// holds it — in random order, through caches of 1 and 64 trees, from four
// goroutines at once — and rebuilds from its blocks and written table.
func TestCoded(t *testing.T) {
	for _, name := range []string{"N44W072.hgt", "annarbor-dsm-2ft.tif"} {
		for _, capCodes := range []int{0, 96} {
			h := realHierarchy(t, name, heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, capCodes)
			for _, cache := range []int{1, 64} {
				c, err := h.Code(cache)
				if err != nil {
					t.Fatal(err)
				}
				if c.Coding() == nil || h.Coding() != nil || len(c.Codes) != 0 {
					t.Fatal("Coding: a coded hierarchy without blocks, or a flat one with some")
				}
				if !slices.Equal(c.Len, h.Len) || !slices.Equal(c.NodeCount, h.NodeCount) {
					t.Fatalf("%s cap %d: code and node counts differ from the flat hierarchy's", name, capCodes)
				}
				// Rebuilt from what a store holds: the table and the blocks.
				cd := *c.Coding()
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

// TestCodedCorrupt: NewCoded refuses damaged starts, caches and blocks
// with a *FormatError naming the block's byte, and never panics on a
// block changed in place.
func TestCodedCorrupt(t *testing.T) {
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 96)
	c, err := h.Code(8)
	if err != nil {
		t.Fatal(err)
	}
	good := *c.Coding()
	var fe *FormatError
	bad := func(what string, cd Coded) {
		t.Helper()
		if _, err := NewCoded(h.G, cd); !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a *FormatError", what, err)
		}
	}
	cd := good
	cd.CacheTrees = 3
	bad("cache of 3", cd)
	cd.CacheTrees = 0
	bad("cache of 0", cd)
	cd = good
	cd.Start = good.Start[:len(good.Start)-1]
	bad("a start short", cd)
	cd.Start = slices.Clone(good.Start)
	cd.Start[5], cd.Start[6] = cd.Start[6], cd.Start[5]+1
	bad("starts out of order", cd)
	cd.Start = slices.Clone(good.Start)
	cd.Blocks = good.Blocks[:len(good.Blocks)-1]
	bad("blocks cut short", cd)
	// A quad's block cut by one byte, the next one taking it.
	big := 0
	for q := range h.Quads() {
		if good.Start[q+1]-good.Start[q] > good.Start[big+1]-good.Start[big] {
			big = q
		}
	}
	cd = good
	cd.Start = slices.Clone(good.Start)
	cd.Start[big+1]--
	if _, err := NewCoded(h.G, cd); !errors.As(err, &fe) || fe.Offset < int(good.Start[big]) || fe.Offset > int(good.Start[big+2]) {
		t.Errorf("block %d cut short: %v, want a *FormatError within it or the next", big, err)
	}
	// Bytes changed in place: refused or read, never a panic; most refused.
	rng := rand.New(rand.NewPCG(3, 3))
	refusedN := 0
	for range 200 {
		cd = good
		cd.Blocks = slices.Clone(good.Blocks)
		cd.Blocks[rng.IntN(len(cd.Blocks))] ^= byte(1 + rng.IntN(255))
		r, err := NewCoded(h.G, cd)
		if err != nil {
			refusedN++
			continue
		}
		for q := range h.Quads() {
			r.PVS(q)
		}
	}
	if refusedN < 100 {
		t.Errorf("%d of 200 changed bytes refused, want most", refusedN)
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
// through a cache of 64 trees, against the flat hierarchy's views.
func BenchmarkCodedPVS(b *testing.B) {
	h := realHierarchy(b, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
	c, err := h.Code(64)
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
// and then every tree reads (through a cache of 2) without a panic, with
// the shape CheckShape wants.
func FuzzNewCoded(f *testing.F) {
	h := realHierarchy(f, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 19, Height: 13}, 64)
	c, err := h.Code(2)
	if err != nil {
		f.Fatal(err)
	}
	good := *c.Coding()
	for _, q := range []int{0, 7, h.Quads() - 3} {
		f.Add(uint16(q), slices.Clone(good.block(q)))
	}
	f.Fuzz(func(t *testing.T, q uint16, block []byte) {
		i := int(q) % h.Quads()
		cd := good
		cd.Blocks = append(append(slices.Clone(good.Blocks[:good.Start[i]]), block...), good.Blocks[good.Start[i+1]:]...)
		cd.Start = slices.Clone(good.Start)
		for k := i + 1; k < len(cd.Start); k++ {
			cd.Start[k] = uint64(int(good.Start[k]) - int(good.Start[i+1]-good.Start[i]) + len(block))
		}
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
			if err := CheckShape(h.G, &tr); err != nil {
				t.Fatalf("quad %d accepted with a bad shape: %v", k, err)
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
