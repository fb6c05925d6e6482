package quadtree

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/frontiersets/frontiersets/heightmap"
)

// storedOf lays h's trees out as a store file does (AppendRecord, records
// in reverse quad order so that the starts are not the index order).
func storedOf(h *Hierarchy) Stored {
	s := Stored{Start: make([]uint64, h.Quads()), Len: make([]uint32, h.Quads()), NodeCount: make([]uint32, h.Quads())}
	for q := h.Quads() - 1; q >= 0; q-- {
		t := h.PVS(q)
		s.Start[q], s.Len[q], s.NodeCount[q] = uint64(len(s.Words)), uint32(t.Len()), uint32(t.Nodes())
		s.Words = AppendRecord(s.Words, &t)
	}
	return s
}

// halves returns words seen as uint32s, as a mapped file gives them.
func halves(words []uint64) []uint32 {
	if len(words) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&words[0])), 2*len(words))
}

// TestStored: a hierarchy read in place reads every tree as the flat one
// holds it; an index entry, a rank sample, a code or an Outside code
// damaged reads as the conservative tree with Err naming the quad, and the
// other trees still read right.
func TestStored(t *testing.T) {
	h := realHierarchy(t, "N44W072.hgt", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
	good := storedOf(h)
	r, err := NewStored(h.G, good, halves(good.Words))
	if err != nil {
		t.Fatal(err)
	}
	for q := range h.Quads() {
		want, got := h.PVS(q), r.PVS(q)
		if !equalTrees(&want, &got) || want.Nodes() != got.Nodes() || !slices.Equal(want.rank, got.rank) {
			t.Fatalf("quad %d read differently", q)
		}
	}
	if r.Err() != nil || r.Bytes() != 8*len(good.Words)+16*h.Quads() {
		t.Fatalf("Err %v, Bytes %d", r.Err(), r.Bytes())
	}
	// The quad with the largest tree, to damage.
	big := 0
	for q := range h.Quads() {
		if good.Len[q] > good.Len[big] {
			big = q
		}
	}
	n := int(good.Len[big])
	cw := uint64((n + 31) / 32)
	for _, c := range []struct {
		name   string
		damage func(s *Stored)
	}{
		{"codes past the words", func(s *Stored) { s.Start[big] = uint64(len(s.Words)) - 1 }},
		{"no codes", func(s *Stored) { s.Len[big] = 0 }},
		{"a node too many", func(s *Stored) { s.NodeCount[big]++ }},
		{"a rank sample", func(s *Stored) { s.Words[s.Start[big]+cw] += 1 }},
		{"ceiling", func(s *Stored) { s.CeilingCodes = n - 1 }},
		{"the root made Hidden", func(s *Stored) { s.Words[s.Start[big]] &^= 3 }},
		{"verify", func(s *Stored) {
			s.Verify = func(region int, lo, hi uint64) error {
				if region == RegionCodes && lo == s.Start[big] {
					return errors.New("checksum")
				}
				return nil
			}
		}},
	} {
		s := good
		s.Words, s.Start, s.Len, s.NodeCount = slices.Clone(good.Words), slices.Clone(good.Start), slices.Clone(good.Len), slices.Clone(good.NodeCount)
		c.damage(&s)
		r, err := NewStored(h.G, s, halves(s.Words))
		if err != nil {
			t.Fatal(err)
		}
		tr := r.PVS(big)
		var te *TreeError
		if !isConservative(&tr) || !errors.As(r.Err(), &te) || te.Quad != big {
			t.Errorf("%s: tree of %d codes, Err %v; want the conservative tree and quad %d's error", c.name, tr.Len(), r.Err(), big)
		}
		other := (big + 1) % h.Quads()
		want, got := h.PVS(other), r.PVS(other)
		if !equalTrees(&want, &got) {
			t.Errorf("%s: quad %d read wrong", c.name, other)
		}
	}
	// The root code of the top quad damaged to Outside, and random damage:
	// never a panic; right or conservative.
	rng := rand.New(rand.NewPCG(5, 5))
	for range 300 {
		s := good
		s.Words = slices.Clone(good.Words)
		s.Words[rng.IntN(len(s.Words))] ^= uint64(1) << rng.IntN(64)
		r, _ := NewStored(h.G, s, halves(s.Words))
		for q := range h.Quads() {
			want, got := h.PVS(q), r.PVS(q)
			if !equalTrees(&want, &got) && !isConservative(&got) {
				// A changed bit may still form a valid tree (a Hidden
				// leaf made Visible): it must then pass every check.
				if err := checkShape(h.G, &got); err != nil {
					t.Fatalf("quad %d read with a bad shape: %v", q, err)
				}
			}
		}
	}
}

// TestCheckOutside: Outside codes where the terrain is refused, and the
// other way round.
func TestCheckOutside(t *testing.T) {
	g, _ := NewGeometry(3, 2) // the square of 4: column 3 and rows 2-3 outside
	var tr Tree
	w := newWriter(&tr)
	w.put(Unknown)
	w.put4(uint(Visible) | uint(Unknown)<<2 | uint(Outside)<<4 | uint(Outside)<<6)
	w.put4(uint(Hidden) | uint(Outside)<<2 | uint(Hidden)<<4 | uint(Outside)<<6)
	w.finish()
	if _, err := checkOutside(g, &tr, nil); err != nil {
		t.Fatalf("a good tree refused: %v", err)
	}
	for i, bad := range []uint{
		uint(Visible) | uint(Unknown)<<2 | uint(Hidden)<<4 | uint(Outside)<<6,  // a south-west quad outside, coded Hidden
		uint(Visible) | uint(Outside)<<2 | uint(Outside)<<4 | uint(Outside)<<6, // an inside quad coded Outside
	} {
		var b Tree
		w := newWriter(&b)
		w.put(Unknown)
		w.put4(bad)
		if bad>>2&3 == uint(Unknown) {
			w.put4(uint(Hidden) | uint(Outside)<<2 | uint(Hidden)<<4 | uint(Outside)<<6)
		}
		w.finish()
		if checkShape(g, &b) != nil {
			continue
		}
		if _, err := checkOutside(g, &b, nil); err == nil {
			t.Errorf("case %d: Outside codes in the wrong place accepted", i)
		}
	}
	// An Outside code under a quad wholly inside the terrain, where the
	// walk along the edge does not go: the count of Outside codes finds it.
	var in Tree
	w = newWriter(&in)
	w.put(Unknown)
	w.put4(uint(Unknown) | uint(Unknown)<<2 | uint(Outside)<<4 | uint(Outside)<<6)
	w.put4(uint(Visible) | uint(Outside)<<2 | uint(Hidden)<<4 | uint(Hidden)<<6) // the north-west quad's: (1,0) is terrain
	w.put4(uint(Hidden) | uint(Outside)<<2 | uint(Hidden)<<4 | uint(Outside)<<6)
	w.finish()
	if err := checkShape(g, &in); err != nil {
		t.Fatalf("shape: %v", err)
	}
	if _, err := checkOutside(g, &in, nil); err == nil || !strings.Contains(err.Error(), "1 Outside codes for quads inside") {
		t.Errorf("an Outside code inside the terrain, off the edge: %v", err)
	}
}
