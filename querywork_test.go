package frontiersets_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// queryWork is what frontier queries on one store cost on average, in
// units that do not depend on the machine: quad PVSs read
// (grow.Result.Lookups), blocks decoded (quadpvs.Hierarchy.Decodes, 0 on a
// flat store) and quads considered (grow.Result.Steps), per query.
type queryWork struct {
	lookups, decodes, steps float64
}

// pinnedWork holds TestQueryWork's figures, measured on the committed
// window when they were last set (2026-11-27). A change that makes queries
// do more than 1.25 times the pinned work fails the test; one that makes
// them do less than 0.8 times it must pin the new figures, so that the
// guard stays tight. The counts are exact (the same stores and pairs on
// every machine), so the margin only has to let small changes of the
// algorithm through: turning the coded cache off raises the unbounded
// lossless decodes 1.37× and fails it.
var pinnedWork = map[string]queryWork{
	"flat lossless 125":  {lookups: 76.9, decodes: 0, steps: 116.6},
	"flat lossy 125":     {lookups: 34.0, decodes: 0, steps: 26.4},
	"flat lossless":      {lookups: 188.3, decodes: 0, steps: 367.0},
	"coded lossless 125": {lookups: 78.9, decodes: 11.7, steps: 121.6},
	"coded lossy 125":    {lookups: 34.2, decodes: 0.6, steps: 27.8},
	"coded lossless":     {lookups: 328.8, decodes: 183.6, steps: 750.8},
}

// TestQueryWork is the guard against slower frontier queries that times
// nothing: a 128×128 window of the committed Mount Washington
// crop, baked with the default model into a flat and a coded store of the
// same budget (capped trees, as in the thesis benchmark), answers the same
// 150 mutually hidden pairs with hierarchical growing — lossless and lossy
// merges at --max-steps 125, the benchmark's protocol, and lossless
// unbounded, the worst case — and the mean work per query must stay within
// 1.25× of pinnedWork both ways. Stores are the same bytes on every CPU and
// queries run on one goroutine, so the counts are exact on any machine.
func TestQueryWork(t *testing.T) {
	dem, err := heightmap.Load("data/mount-washington.tif", heightmap.Options{Window: heightmap.Window{Col: 64, Row: 64, Width: 128, Height: 128}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 2_500_000 // bytes
	cp, err := compress.CapForBudget(budget, g.QuadCount())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	outs := []bake.Output{
		{Path: filepath.Join(dir, "flat.pvs"), Budget: budget, Cap: cp},
		{Path: filepath.Join(dir, "coded.pvs"), Budget: budget, Coded: true,
			Cap: compress.Cap{Codes: compress.CodedCeiling(budget, g.QuadCount()), MinLoss: true}},
	}
	if _, err := bake.Run(context.Background(), bake.Config{DEM: dem, Params: conservativeParams(), Outputs: outs}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opt  grow.Options
	}{
		{"lossless 125", grow.Options{Merge: quadpvs.Lossless, MaxSteps: 125}},
		{"lossy 125", grow.Options{Merge: quadpvs.Lossy, MaxSteps: 125}},
		{"lossless", grow.Options{Merge: quadpvs.Lossless, MaxSteps: grow.Unbounded}},
	}
	for i, enc := range []string{"flat", "coded"} {
		st, err := compress.Open(outs[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		gr, err := grow.New(st.Hierarchy, st.Elev, st.Nodata)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(59, 59))
		var ps [][2][2]int
		for len(ps) < 150 {
			a := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
			b := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
			if vis, err := gr.MutuallyVisible(a, b); err == nil && !vis {
				ps = append(ps, [2][2]int{a, b})
			}
		}
		var s grow.Scratch
		var res grow.Result
		for _, c := range cases {
			name := enc + " " + c.name
			var w queryWork
			points := 0
			for _, p := range ps {
				d := st.Hierarchy.Decodes()
				if err := gr.Grow(p[0], p[1], c.opt, &s, &res); err != nil {
					t.Fatal(err)
				}
				w.lookups += float64(res.Lookups)
				w.decodes += float64(st.Hierarchy.Decodes() - d)
				w.steps += float64(res.Steps)
				points += res.A.Points + res.B.Points
			}
			n := float64(len(ps))
			w = queryWork{w.lookups / n, w.decodes / n, w.steps / n}
			t.Logf("%s: %.1f lookups, %.1f decodes, %.1f steps, %.0f frontier points per query", name, w.lookups, w.decodes, w.steps, float64(points)/n)
			pin := pinnedWork[name]
			for _, f := range []struct {
				what      string
				got, want float64
			}{{"lookups", w.lookups, pin.lookups}, {"decodes", w.decodes, pin.decodes}, {"steps", w.steps, pin.steps}} {
				if msg := outsideMargin(f.got, f.want); msg != "" {
					t.Errorf("%s: %.1f %s per query, pinned %.1f: %s", name, f.got, f.what, f.want, msg)
				}
			}
		}
	}
}

// outsideMargin says why got is not within 1.25× of want either way (""
// when it is; counts under one per query apart always are): more work than
// pinned is a regression, much less a stale pin.
// conservativeParams returns the default parameters under the
// conservative model, whose query counts the test pins.
func conservativeParams() horizon.Params {
	p := horizon.DefaultParams()
	p.LOS = horizon.LOSConservative
	return p
}

func outsideMargin(got, want float64) string {
	switch {
	case got > 1.25*want && got > want+1:
		return "over 1.25× the pinned work: find what made queries do more"
	case got < want/1.25 && got+1 < want:
		return "under 0.8× the pinned work: pin the new figure in pinnedWork"
	}
	return ""
}
