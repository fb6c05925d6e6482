package grow

import (
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// BenchmarkGrow runs the four methods of §4.1 on a 128×128 window of the
// open terrain (uncapped PVSs) over a fixed set of mutually invisible
// pairs, reporting frontier points per query alongside the time.
func BenchmarkGrow(b *testing.B) {
	f := newFixture(b, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 128, Height: 128}, 0)
	rng := rand.New(rand.NewPCG(7, 7))
	var pairs [][2][2]int
	for len(pairs) < 16 {
		a := [2]int{rng.IntN(128), rng.IntN(128)}
		c := [2]int{rng.IntN(128), rng.IntN(128)}
		if vis, err := f.gr.MutuallyVisible(a, c); err == nil && !vis {
			pairs = append(pairs, [2][2]int{a, c})
		}
	}
	for _, opt := range []Options{
		{Method: Hierarchical, Merge: quadpvs.Lossless},
		{Method: Hierarchical, Merge: quadpvs.Lossy},
		{Method: Simple, Merge: quadpvs.Lossless},
		{Method: Simple, Merge: quadpvs.Lossy},
	} {
		b.Run(opt.Method.String()+"/"+opt.Merge.String(), func(b *testing.B) {
			var s Scratch
			var res Result
			points := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				p := pairs[i%len(pairs)]
				if err := f.gr.Grow(p[0], p[1], opt, &s, &res); err != nil {
					b.Fatal(err)
				}
				points += res.A.Points + res.B.Points
			}
			b.ReportMetric(float64(points)/float64(b.N), "points/query")
		})
	}
}
