package horizon

import (
	"fmt"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// benchTerrains are the thesis-sized windows of the two real terrains.
var benchTerrains = []struct {
	name string
	win  heightmap.Window
}{
	{"N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 316, Height: 316}},
	{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 143, Row: 184, Width: 500, Height: 500}},
}

// BenchmarkViewshed measures one observer's viewshed at S = 1024, observers
// spread over the grid; it reports observers/s and ns per midline step.
func BenchmarkViewshed(b *testing.B) {
	benchViewshed(b, false)
}

// BenchmarkViewshedConservative is BenchmarkViewshed with
// the conservative model: a chord across a few patches a step.
func BenchmarkViewshedConservative(b *testing.B) {
	benchViewshed(b, true)
}

func benchViewshed(b *testing.B, conservative bool) {
	for _, bt := range benchTerrains {
		b.Run(bt.name, func(b *testing.B) {
			ter := loadWindow(b, bt.name, bt.win)
			p := ThesisParams()
			if conservative {
				p.LOS = LOSConservative
			}
			m, err := New(ter, p)
			if err != nil {
				b.Fatal(err)
			}
			w := m.NewWorker()
			bm := NewBitmap(ter.Width, ter.Height)
			steps := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				c, r := (i*7919)%ter.Width, (i*104729)%ter.Height
				bm, _ = w.Viewshed(c, r, bm)
				for k := range m.p.Sectors {
					steps += int(w.n[k])
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "observers/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
		})
	}
}

// BenchmarkViewshedNaive is the baseline: the exact line-of-sight reference
// from one observer, on a 64² window (it is quadratic per target).
func BenchmarkViewshedNaive(b *testing.B) {
	ter := loadWindow(b, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 64, Height: 64})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		losref.Viewshed(losref.Grid{Width: ter.Width, Height: ter.Height, Elev: ter.Elev}, (i*7)%64, (i*13)%64, 1.8, 1.8)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "observers/s")
}

func BenchmarkNew(b *testing.B) {
	ter := loadWindow(b, "N44W072.hgt", benchTerrains[0].win)
	b.ReportAllocs()
	for b.Loop() {
		New(ter, ThesisParams())
	}
}

// BenchmarkClassify measures one observer's visibility as a quad pyramid
// (the bake's path: whole quads decided from bounds), S = 1024; it reports
// observers/s and ns per observer–cell pair.
func BenchmarkClassify(b *testing.B) {
	for _, bt := range benchTerrains {
		b.Run(bt.name, func(b *testing.B) { benchClassify(b, loadWindow(b, bt.name, bt.win)) })
	}
}

// BenchmarkClassifyLarge is BenchmarkClassify on a 1025² window of the HGT
// tile, the game-map size.
func BenchmarkClassifyLarge(b *testing.B) {
	benchClassify(b, loadWindow(b, "N44W072.hgt", heightmap.Window{Col: 88, Row: 88, Width: 1025, Height: 1025}))
}

// BenchmarkClassifyViewDistance is BenchmarkClassify on the whole HGT tile
// with a 2,400 m view distance (the bake benchmark's hgt-1201-2400m case).
func BenchmarkClassifyViewDistance(b *testing.B) {
	p := ThesisParams()
	p.MaxDistance = 2400
	benchClassifyParams(b, loadWindow(b, "N44W072.hgt", heightmap.Window{Width: 1201, Height: 1201}), p)
}

func benchClassify(b *testing.B, ter Terrain) { benchClassifyParams(b, ter, ThesisParams()) }

func benchClassifyParams(b *testing.B, ter Terrain, p Params) {
	m, err := New(ter, p)
	if err != nil {
		b.Fatal(err)
	}
	w := m.NewWorker()
	lv := NewLevels(ter.Width, ter.Height)
	steps := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c, r := bakeOrder(i, ter.Width, ter.Height)
		if err := w.Classify(c, r, lv, nil); err != nil {
			b.Fatal(err)
		}
		for _, n := range w.n {
			steps += int(n)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "observers/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ter.Width*ter.Height), "ns/pair")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/observer")
}

// bakeOrder returns the i-th observer of a benchmark in the order one of the
// bake's two workers meets them: tile by tile (32 cells a side, tiles spread
// over the grid), every other cell of a tile in Morton order.
func bakeOrder(i, width, height int) (col, row int) {
	const shift = 5
	const side = 1 << shift
	per := side * side / 2
	tc, tr := (width+side-1)/side, (height+side-1)/side
	t := (i / per * 7919) % (tc * tr)
	j := 2 * (i % per)
	var x, y int
	for bit := range 2 * shift {
		if j>>bit&1 != 0 {
			if bit%2 == 0 {
				x |= 1 << (bit / 2)
			} else {
				y |= 1 << (bit / 2)
			}
		}
	}
	return min(t%tc*side+x, width-1), min(t/tc*side+y, height-1)
}

// BenchmarkBlock is BenchmarkClassify for the block engine: 16 observers
// per Classify, blocks visited in the bake's order (tile by tile, Morton
// order within a tile); it reports observers/s and ns per observer–cell pair.
func BenchmarkBlock(b *testing.B) {
	for _, bt := range benchTerrains {
		b.Run(bt.name, func(b *testing.B) { benchBlock(b, loadWindow(b, bt.name, bt.win), ThesisParams()) })
	}
}

// BenchmarkBlockLarge is BenchmarkBlock on the 1025² window of the HGT tile.
func BenchmarkBlockLarge(b *testing.B) {
	benchBlock(b, loadWindow(b, "N44W072.hgt", heightmap.Window{Col: 88, Row: 88, Width: 1025, Height: 1025}), ThesisParams())
}

func benchBlock(b *testing.B, ter Terrain, p Params) {
	m, err := New(ter, p)
	if err != nil {
		b.Fatal(err)
	}
	bw := m.NewBlockWorker()
	var blk Block
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c, r := blockOrder(i, ter.Width, ter.Height)
		if err := bw.Classify(c, r, nil, &blk); err != nil {
			b.Fatal(err)
		}
	}
	obs := float64(b.N * Lanes)
	b.ReportMetric(obs/b.Elapsed().Seconds(), "observers/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/obs/float64(ter.Width*ter.Height), "ns/pair")
	b.ReportMetric(float64(bw.Stats.WalkSteps)/obs, "lane-steps/observer")
	b.ReportMetric(float64(bw.Stats.Bounds)/float64(b.N), "bounds/block")
	b.ReportMetric(float64(bw.Stats.CellGroups)/float64(b.N), "cellquads/block")
	b.ReportMetric(float64(bw.Stats.LaneCells)/obs, "cells/observer")
	b.ReportMetric(float64(bw.Stats.Sectors)/float64(bw.Stats.Bounds), "sectors/bound")
}

// blockOrder returns the corner of the i-th block a bake worker meets:
// 32×32-cell tiles spread over the grid, Morton order of the 64 blocks of
// a tile (blocks past the grid's edge are clamped onto it).
func blockOrder(i, width, height int) (col, row int) {
	const side = 32
	const per = side * side / Lanes
	tc, tr := (width+side-1)/side, (height+side-1)/side
	t := (i / per * 7919) % (tc * tr)
	j := i % per
	var x, y int
	for bit := range 6 {
		if j>>bit&1 != 0 {
			if bit%2 == 0 {
				x |= 1 << (bit / 2)
			} else {
				y |= 1 << (bit / 2)
			}
		}
	}
	col, row = t%tc*side+x*BlockSide, t/tc*side+y*BlockSide
	return min(col, (width-1)&^(BlockSide-1)), min(row, (height-1)&^(BlockSide-1))
}

// BenchmarkBlockConservative is BenchmarkBlock in the conservative mode
// (LOSConservative), whose profiles take a lower bound of the surface
// over each sector's arc: the bake's cost of that mode.
func BenchmarkBlockConservative(b *testing.B) {
	for _, bt := range benchTerrains {
		b.Run(bt.name, func(b *testing.B) {
			p := ThesisParams()
			p.LOS = LOSConservative
			benchBlock(b, loadWindow(b, bt.name, bt.win), p)
		})
	}
}

// BenchmarkBlockRegion is BenchmarkBlock in the region mode (LOSRegion),
// whose profiles bound the surface over each arc swept by a cell's square:
// the bake's cost of that mode, in each version this build bakes.
func BenchmarkBlockRegion(b *testing.B) {
	for _, bt := range benchTerrains {
		for v := LOSRegion.Oldest(); v <= LOSRegion.Version(); v++ {
			b.Run(fmt.Sprintf("%s/v%d", bt.name, v), func(b *testing.B) {
				p := ThesisParams()
				p.LOS, p.Version = LOSRegion, v
				benchBlock(b, loadWindow(b, bt.name, bt.win), p)
			})
		}
	}
}
