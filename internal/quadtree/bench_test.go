package quadtree

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

var benchWin = heightmap.Window{Col: 700, Row: 700, Width: 316, Height: 316}

// BenchmarkEncode builds trees from real 316² viewsheds.
func BenchmarkEncode(b *testing.B) {
	g, bms := realPVSs(b, "N44W072.hgt", benchWin, 16)
	enc := NewEncoder(g)
	var tr Tree
	nodes := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		enc.Encode(bms[i%len(bms)], &tr)
		nodes += tr.Nodes()
	}
	b.ReportMetric(float64(g.Width*g.Height)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mcells/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/tree")
}

// mergeCases returns pairs of trees on the 316² geometry whose sizes fall in
// the thesis's range (100 to 3,000 nodes), from random aligned rectangles,
// bucketed by node count.
func mergeCases(b *testing.B) (Geometry, map[string][][2]*Tree) {
	g, _ := NewGeometry(316, 316)
	rng := rand.New(rand.NewPCG(9, 9))
	enc := NewEncoder(g)
	buckets := map[string][]*Tree{}
	bucket := func(n int) string {
		switch {
		case n >= 60 && n <= 160:
			return "~100_nodes"
		case n >= 700 && n <= 1400:
			return "~1000_nodes"
		case n >= 2200 && n <= 4000:
			return "~3000_nodes"
		}
		return ""
	}
	for tries := 0; tries < 20000; tries++ {
		full := true
		for _, k := range []string{"~100_nodes", "~1000_nodes", "~3000_nodes"} {
			full = full && len(buckets[k]) >= 16
		}
		if full {
			break
		}
		bm := horizon.NewBitmap(316, 316)
		align := 1 << rng.IntN(5)
		for range 1 + rng.IntN(40) {
			x0, y0 := rng.IntN(316/align)*align, rng.IntN(316/align)*align
			x1, y1 := min(x0+(rng.IntN(8)+1)*align, 316), min(y0+(rng.IntN(8)+1)*align, 316)
			for r := y0; r < y1; r++ {
				for c := x0; c < x1; c++ {
					bm.Set(c, r, true)
				}
			}
		}
		t := &Tree{}
		enc.Encode(bm, t)
		if k := bucket(t.Nodes()); k != "" && len(buckets[k]) < 16 {
			buckets[k] = append(buckets[k], t)
		}
	}
	cases := map[string][][2]*Tree{}
	for k, ts := range buckets {
		for i := 0; i+1 < len(ts); i += 2 {
			cases[k] = append(cases[k], [2]*Tree{ts[i], ts[i+1]})
		}
		if len(cases[k]) == 0 {
			b.Fatalf("no trees of %s", k)
		}
	}
	return g, cases
}

// BenchmarkMerge reports ns per output node (every output node is one node
// pair or one copied node touched).
func BenchmarkMerge(b *testing.B) {
	_, cases := mergeCases(b)
	for _, name := range []string{"~100_nodes", "~1000_nodes", "~3000_nodes"} {
		for _, mode := range []Mode{Lossless, Lossy} {
			b.Run(name+"/"+mode.String(), func(b *testing.B) {
				pairs := cases[name]
				var m Merger
				var out Tree
				touched, in := 0, 0
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					p := pairs[i%len(pairs)]
					m.Merge(&out, p[0], p[1], mode)
					touched += out.Len()
					in += p[0].Nodes() + p[1].Nodes()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(touched), "ns/node")
				b.ReportMetric(float64(in)/float64(b.N), "input-nodes")
			})
		}
	}
}

// BenchmarkMergeBitmapOR is the naive baseline: OR of two uncompressed
// 316² bitmaps.
func BenchmarkMergeBitmapOR(b *testing.B) {
	x, y := horizon.NewBitmap(316, 316), horizon.NewBitmap(316, 316)
	out := horizon.NewBitmap(316, 316)
	b.ReportAllocs()
	for b.Loop() {
		for i := range out.Words {
			out.Words[i] = x.Words[i] | y.Words[i]
		}
	}
}

// BenchmarkQuadStatus queries random quads of random levels in ~3,000-node
// trees.
func BenchmarkQuadStatus(b *testing.B) {
	g, cases := mergeCases(b)
	trees := cases["~3000_nodes"]
	rng := rand.New(rand.NewPCG(1, 9))
	type q struct{ l, x, y int }
	qs := make([]q, 1024)
	for i := range qs {
		l := rng.IntN(g.Levels())
		c, r := g.QuadsAcross(l)
		qs[i] = q{l, rng.IntN(c), rng.IntN(r)}
	}
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		t := trees[i%len(trees)][0]
		p := qs[i%len(qs)]
		n += int(t.QuadStatus(g, p.l, p.x, p.y))
	}
	_ = n
}

// BenchmarkCellStatus queries random cells (the deepest descent).
func BenchmarkCellStatus(b *testing.B) {
	g, cases := mergeCases(b)
	trees := cases["~3000_nodes"]
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		t := trees[i%len(trees)][0]
		n += int(t.CellStatus(g, (i*7919)%316, (i*104729)%316))
	}
	_ = n
}

// BenchmarkHierarchy builds the lossless hierarchical PVS of a 128² real
// window from precomputed viewsheds (the viewsheds themselves not timed).
func BenchmarkHierarchy(b *testing.B) {
	g, _ := NewGeometry(128, 128)
	bms := make([]horizon.Bitmap, 128*128)
	dem := testdem.Load(b, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 128, Height: 128}, heightmap.Options{})
	m, _ := horizon.New(horizon.Terrain{Width: 128, Height: 128, Elev: dem.Elev, Dx: dem.Dx, Dy: dem.Dy}, horizon.ThesisParams())
	wk := m.NewWorker()
	for i := range bms {
		bms[i], _ = wk.Viewshed(i%128, i/128, horizon.Bitmap{})
	}
	var h *Hierarchy
	enc := NewEncoder(g)
	var tr Tree
	b.ReportAllocs()
	for b.Loop() {
		h = NewHierarchy(g)
		hb := NewHierarchyBuilder(g, func(l, x, y int, t *Tree) error { h.Set(l, x, y, t); return nil })
		for _, c32 := range hb.Order() {
			c := [2]int{int(c32[0]), int(c32[1])}
			enc.Encode(bms[c[1]*128+c[0]], &tr)
			hb.Add(c[0], c[1], &tr)
		}
	}
	nodes := 0
	for _, n := range h.nodeCount {
		nodes += int(n)
	}
	b.ReportMetric(float64(128*128*b.N)/b.Elapsed().Seconds(), "cells/s")
	b.ReportMetric(float64(nodes)/float64(h.Quads()), "nodes/quad")
	b.ReportMetric(float64(h.Bytes())/float64(nodes), "bytes/node")
}
