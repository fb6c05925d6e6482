package compress

import (
	"bytes"
	"os"
	"testing"

	"github.com/frontiersets/frontiersets/internal/blockindex"
	"github.com/frontiersets/frontiersets/internal/quadtree"
)

// TestIndexSpill: a flat and a coded store written with their index in a
// spill file — from the start and from halfway, through chunks of 4 KiB —
// are byte for byte the stores written with it in memory.
func TestIndexSpill(t *testing.T) {
	defer func(c int64) { indexChunk = c }(indexChunk)
	indexChunk = 4096
	spill := func() *os.File {
		f, err := os.CreateTemp(t.TempDir(), "index")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	flatB, trees := testStore(t, 61, 47, true)
	s, err := Decode(bytes.NewReader(flatB))
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []int{0, len(trees) / 2} {
		var f memFile
		w, err := NewWriter(&f, s.Header, len(trees), s.Elev, s.Nodata)
		if err != nil {
			t.Fatal(err)
		}
		for k := range trees {
			if k == from {
				if err := w.SetIndexSpill(spill()); err != nil {
					t.Fatal(err)
				}
			}
			q := len(trees) - 1 - k // testStore's order
			if err := w.Add(q, &trees[q]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(s.Stats); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.b, flatB) {
			t.Fatalf("flat store spilled from tree %d of %d: %d bytes differ from the %d written in memory", from, len(trees), len(f.b), len(flatB))
		}
	}

	codedB, _ := codedStore(t, 61, 47)
	cs, err := Decode(bytes.NewReader(codedB))
	if err != nil {
		t.Fatal(err)
	}
	c := quadtree.CodingOf(cs.Hierarchy)
	for _, from := range []int{0, len(c.Index) / 3} {
		var f memFile
		w, err := NewCodedWriter(&f, cs.Header, len(c.Index), c.Coder.Table(), cs.Elev, cs.Nodata)
		if err != nil {
			t.Fatal(err)
		}
		for q, e := range c.Index {
			if q == from {
				if err := w.SetIndexSpill(spill()); err != nil {
					t.Fatal(err)
				}
			}
			off, n := blockindex.At(e)
			if err := w.Add(q, c.Blocks[off:off+n]); err != nil {
				t.Fatal(err)
			}
		}
		if st, err := w.Checkpoint(); err != nil || st.Index != nil {
			t.Fatalf("checkpoint of a spilled writer: %v, %d index bytes; want none in memory", err, len(st.Index))
		}
		if err := w.Close(cs.Stats); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.b, codedB) {
			t.Fatalf("coded store spilled from quad %d of %d: %d bytes differ from the %d written in memory", from, len(c.Index), len(f.b), len(codedB))
		}
	}
}
