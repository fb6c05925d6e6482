package quadtree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
)

// emitted is one quad a builder emitted: its position and its codes.
type emitted struct {
	l, x, y int
	n       int
	codes   []uint64
}

func (e emitted) String() string { return fmt.Sprintf("l%d (%d,%d) %d codes", e.l, e.x, e.y, e.n) }

// TestSpanJoin splits a hierarchy into spans of whole subtrees of level L
// (as a sharded bake does) and joins their roots with a span from L to the
// root: the emitted quads, in order, and their trees equal those of one
// builder over the whole hierarchy, for every split level and several
// uneven splits of odd-sized terrains.
func TestSpanJoin(t *testing.T) {
	for _, size := range [][2]int{{13, 9}, {16, 16}, {5, 17}, {1, 1}, {33, 2}} {
		g, _ := NewGeometry(size[0], size[1])
		rng := rand.New(rand.NewPCG(uint64(size[0]), uint64(size[1])))
		cells := make(map[[2]int]Tree)
		enc := NewEncoder(g)
		for _, c32 := range g.MortonCells(nil) {
			c := [2]int{int(c32[0]), int(c32[1])}
			bm := horizon.NewBitmap(g.Width, g.Height)
			for i := range g.Width * g.Height {
				if rng.IntN(3) == 0 {
					bm.Set(i%g.Width, i/g.Width, true)
				}
			}
			var tr Tree
			enc.Encode(bm, &tr)
			cells[c] = tr
		}
		record := func(dst *[]emitted) Emit {
			return func(l, x, y int, t *Tree) error {
				*dst = append(*dst, emitted{l, x, y, t.Len(), slices.Clone(t.Codes())})
				return nil
			}
		}
		var want []emitted
		b := NewHierarchyBuilder(g, record(&want))
		for _, c32 := range b.Order() {
			c := [2]int{int(c32[0]), int(c32[1])}
			src := cells[c]
			tr := src.Clone()
			if err := b.Add(c[0], c[1], &tr); err != nil {
				t.Fatal(err)
			}
		}
		for top := range g.Levels() {
			quads := g.MortonQuads(top, nil)
			// Cells per quad of level top, in Morton order.
			var firstCell []int
			n := 0
			for _, q := range quads {
				firstCell = append(firstCell, n)
				n += g.cellsIn(quadPos{g.K - top, int(q[0]), int(q[1])})
			}
			firstCell = append(firstCell, n)
			for _, shards := range []int{1, 2, 3, 7} {
				t.Run(fmt.Sprintf("%dx%d/L%d/%d", g.Width, g.Height, top, shards), func(t *testing.T) {
					var got []emitted
					var roots []Tree
					subtrees := map[[2]int][]emitted{}
					for s := range shards {
						lo, hi := len(quads)*s/shards, len(quads)*(s+1)/shards
						var part []emitted
						sb, err := NewSpanBuilder(g, Span{Base: 0, Top: top, First: firstCell[lo], Last: firstCell[hi]}, record(&part))
						if err != nil {
							t.Fatal(err)
						}
						for _, c32 := range sb.Order() {
							c := [2]int{int(c32[0]), int(c32[1])}
							src := cells[c]
							tr := src.Clone()
							if err := sb.Add(c[0], c[1], &tr); err != nil {
								t.Fatal(err)
							}
						}
						if !sb.Done() {
							t.Fatal("shard not done")
						}
						// Cut the shard's stream into subtrees: each ends with its root.
						start := 0
						for i, e := range part {
							if e.l == top {
								subtrees[[2]int{e.x, e.y}] = part[start : i+1]
								var r Tree
								if err := FromCodes(g, e.codes, e.n, &r); err != nil {
									t.Fatal(err)
								}
								roots = append(roots, r)
								start = i + 1
							}
						}
					}
					if len(roots) != len(quads) {
						t.Fatalf("%d roots, want %d", len(roots), len(quads))
					}
					jb, err := NewSpanBuilder(g, Span{Base: top, Top: g.K, Last: -1}, func(l, x, y int, tr *Tree) error {
						if l == top {
							got = append(got, subtrees[[2]int{x, y}]...)
							return nil
						}
						return record(&got)(l, x, y, tr)
					})
					if err != nil {
						t.Fatal(err)
					}
					for i, q32 := range jb.Order() {
						q := [2]int{int(q32[0]), int(q32[1])}
						if err := jb.Add(q[0], q[1], &roots[i]); err != nil {
							t.Fatal(err)
						}
					}
					if len(got) != len(want) {
						t.Fatalf("%d quads emitted, want %d", len(got), len(want))
					}
					for i := range want {
						if got[i].String() != want[i].String() || !slices.Equal(got[i].codes, want[i].codes) {
							t.Fatalf("quad %d: %v, want %v", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
	g, _ := NewGeometry(5, 3)
	for _, s := range []Span{{Base: 2, Top: 1}, {Top: 4}, {First: 3, Last: 2, Top: 1}, {Last: 16}} {
		if _, err := NewSpanBuilder(g, s, nil); err == nil {
			t.Errorf("span %+v accepted", s)
		}
	}
}
