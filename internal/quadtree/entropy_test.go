package quadtree

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
)

// TestCodeStats: known answers. A tree against itself has exactly its
// Hidden codes redundant; against an all-hidden parent every code, against
// an all-visible one none, and the parent then tells nothing (the same
// entropy as without it); a subtree at the root is the whole tree; the
// entropies are ordered (more context never costs bits) and below 2 bits;
// a stream of one repeated code has entropy 0.
func TestCodeStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g, _ := NewGeometry(37, 23)
	hidden := encode(t, g, horizon.NewBitmap(37, 23))
	all := horizon.NewBitmap(37, 23)
	for c := range 37 * 23 {
		all.Set(c%37, c/37, true)
	}
	visible := encode(t, g, all)
	var cs CodeStats
	for i := range 8 {
		bm := blobs(rng, 37, 23)
		if i%2 == 1 {
			bm = noise(rng, 37, 23, 0.4)
		}
		tr := encode(t, g, bm)
		if n := subtreeCodes(tr, 0); n != tr.Len() {
			t.Fatalf("subtree at the root: %d codes of %d", n, tr.Len())
		}
		var one CodeStats
		one.AddConditional(tr, tr)
		if int(one.Redundant) != tr.count(Hidden) {
			t.Errorf("tree against itself: %d redundant, %d hidden codes", one.Redundant, tr.count(Hidden))
		}
		one = CodeStats{}
		one.AddConditional(tr, hidden)
		if int(one.Redundant) != tr.Len() {
			t.Errorf("all-hidden parent: %d redundant of %d", one.Redundant, tr.Len())
		}
		one = CodeStats{}
		one.Add(tr)
		one.AddConditional(tr, visible)
		_, _, hs := one.Entropy()
		if one.Redundant != 0 || math.Abs(one.ConditionalEntropy()-hs) > 1e-9 {
			t.Errorf("all-visible parent: %d redundant, %g bits given the parent, %g without", one.Redundant, one.ConditionalEntropy(), hs)
		}
		none := CodeStats{}
		none.Add(tr)
		none.AddConditional(tr, nil)
		if none.Redundant != 0 || none.ConditionalEntropy() != one.ConditionalEntropy() {
			t.Errorf("no parent: %d redundant, %g bits; all-visible parent %g", none.Redundant, none.ConditionalEntropy(), one.ConditionalEntropy())
		}
		cs.Add(tr)
	}
	h0, hd, hs := cs.Entropy()
	t.Logf("%d codes: %.3f, %.3f, %.3f bits per code", cs.Codes, h0, hd, hs)
	if !(hs <= hd+1e-9 && hd <= h0+1e-9 && h0 <= 2 && hs > 0) {
		t.Errorf("entropies %g, %g, %g bits per code", h0, hd, hs)
	}
	var flat CodeStats
	flat.Add(hidden)
	if h0, _, _ := flat.Entropy(); h0 != 0 || flat.Codes != 1 {
		t.Errorf("one code: %d codes, %g bits", flat.Codes, h0)
	}
	if b := entropyBits([]int64{1, 1, 1, 1}); math.Abs(b-8) > 1e-12 {
		t.Errorf("uniform over 4 symbols: %g bits for 4 codes", b)
	}
}
