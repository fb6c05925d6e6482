package main

import (
	"testing"

	"frontiersets/horizon"
	"frontiersets/quadpvs"
)

// TestShareEstimate: a hierarchy whose every quad holds the same tree
// saves, with the whole tree as the smallest shared subtree, all but the
// first copy less one reference each; with a larger minimum, nothing.
func TestShareEstimate(t *testing.T) {
	g, _ := quadpvs.NewGeometry(16, 16)
	bm := horizon.NewBitmap(16, 16)
	for i := range 256 {
		if (i*7919)%5 < 2 {
			bm.Words[i>>6] |= 1 << (i & 63)
		}
	}
	var tr quadpvs.Tree
	if err := quadpvs.NewEncoder(g).Encode(bm, &tr); err != nil {
		t.Fatal(err)
	}
	h := quadpvs.NewHierarchy(g)
	for l := range g.Levels() {
		cols, rows := g.QuadsAcross(l)
		for y := range rows {
			for x := range cols {
				h.Set(l, x, y, &tr)
			}
		}
	}
	quads := int64(h.Quads())
	r := shareEstimate(h, tr.Len(), 10)
	if r.codes != quads*int64(tr.Len()) || r.saved != (quads-1)*int64(tr.Len()-10) || r.distinct != 1 {
		t.Errorf("whole trees: %+v for %d quads of %d codes", r, quads, tr.Len())
	}
	if r := shareEstimate(h, tr.Len()+1, 10); r.saved != 0 || r.distinct != 0 {
		t.Errorf("minimum above the tree: %+v", r)
	}
	if r := shareEstimate(h, 5, 0); r.saved < (quads-1)*int64(tr.Len()) {
		t.Errorf("small subtrees, free references: saved %d, want at least %d", r.saved, (quads-1)*int64(tr.Len()))
	}
}
