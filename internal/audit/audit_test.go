package audit

import (
	"testing"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/testdem"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestConservativeStoreAudits: on a real HGT window baked uncapped in the
// conservative mode, no hidden cell of 8 observers' stored PVSs is exactly
// visible and the adversarial search finds no candidate; it hides at
// least 95% as many cells as the sector model's store of the same window
// (it may hide a few more: a cell is judged against its own wedge's
// profile, where the sector model takes the lower of two).
func TestConservativeStoreAudits(t *testing.T) {
	g := testdem.Load(t, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 40, Height: 36}, heightmap.Options{})
	hidden := map[bool]int{}
	for _, cons := range []bool{false, true} {
		p := horizon.ThesisParams()
		if cons {
			p.LOS = horizon.LOSConservative
		}
		s, gr, m := bakeStore(t, g, p)
		fh := FalseHidden(s, g, 8, 1)
		hidden[cons] = fh.Hidden
		adv, err := Adversarial(s, gr, g, m, grow.Options{Method: grow.Hierarchical, Merge: quadpvs.Lossy}, 8, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("conservative %v: %d of %d hidden cells exactly visible; adversarial: %d candidates, %d violations", cons, fh.FalseHidden, fh.Hidden, adv.Candidates, adv.Violations)
		if fh.Observers != 8 || fh.Hidden == 0 {
			t.Errorf("%d observers, %d hidden cells", fh.Observers, fh.Hidden)
		}
		if cons && (fh.FalseHidden != 0 || adv.Candidates != 0 || adv.Violations != 0) {
			t.Errorf("conservative store: %d exactly visible hidden cells, %d candidates, %d violations", fh.FalseHidden, adv.Candidates, adv.Violations)
		}
	}
	if float64(hidden[true]) < 0.95*float64(hidden[false]) {
		t.Errorf("conservative store hides %d cells, the sector model's %d", hidden[true], hidden[false])
	}
}
