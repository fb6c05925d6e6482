package audit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// bakeStore bakes g with p into an uncapped store and returns it opened,
// its grower and p's model of g.
func bakeStore(t *testing.T, g *heightmap.Grid, p horizon.Params) (*compress.Store, *grow.Grower, *horizon.Model) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.pvs")
	if _, err := bake.Run(context.Background(), bake.Config{DEM: g, Params: p, Outputs: []bake.Output{{Path: path, Budget: 1 << 30}}}); err != nil {
		t.Fatal(err)
	}
	s, err := bake.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		t.Fatal(err)
	}
	m, err := horizon.New(bake.Terrain(g), p)
	if err != nil {
		t.Fatal(err)
	}
	return s, gr, m
}

// TestFrontiersReproducible: an audit's seed fixes its pairs, its sampled
// points and its positions, whatever the workers (one or four) — the same
// report to the last position pair — and another seed draws others; on a
// store of the region model, positions inside the cells find no
// violation.
func TestFrontiersReproducible(t *testing.T) {
	g := testdem.Load(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 40, Height: 36}, heightmap.Options{})
	p := horizon.DefaultParams()
	p.Sectors, p.LOS = 128, horizon.LOSRegion
	s, gr, m := bakeStore(t, g, p)
	run := func(seed uint64, workers int) FrontierReport {
		t.Helper()
		calls := 0
		rep, err := Frontiers(context.Background(), FrontierAudit{Store: s, Grower: gr, Grid: g, Model: m,
			Pairs: 12, Sample: 3, Exact: true, Positions: 2, Seed: seed, Workers: workers, Progress: func(done, total int) { calls++ }})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 12 {
			t.Errorf("progress called %d times for 12 pairs", calls)
		}
		return rep
	}
	one, four := run(5, 1), run(5, 4)
	t.Logf("%+v", one)
	if one != four {
		t.Errorf("seed 5 on one worker: %+v; on four: %+v", one, four)
	}
	if one.Pairs != 12 || one.Checked == 0 || one.PositionPairs == 0 || one.Violations != 0 {
		t.Errorf("report %+v: want 12 pairs, points and position pairs checked, no violation", one)
	}
	if other := run(6, 4); other == one {
		t.Errorf("seeds 5 and 6 gave the same report %+v", one)
	}
}
