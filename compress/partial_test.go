package compress

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// testPart writes a partial file for a w×h grid with two outputs: every
// quad's tree (the second output's a copy) and every fourth quad flagged a
// root with a third tree. It returns the file and the trees written.
func testPart(t testing.TB, w, h int, withGrid bool) ([]byte, []quadpvs.Tree) {
	g, _ := quadpvs.NewGeometry(w, h)
	rng := rand.New(rand.NewPCG(3, 4))
	elev := make([]float32, w*h)
	for i := range elev {
		elev[i] = float32(rng.IntN(1000)) / 10
	}
	nd := make([]bool, w*h)
	nd[1] = true
	hd := Header{Width: w, Height: h, DxM: 2, DyM: 3, Source: "test", Params: FromHorizon(horizon.ThesisParams())}
	ph := PartHeader{Shard: 0, Shards: 2, Level: 1, First: 0, Last: 3, Points: w*h - 1, HiddenSample: 16,
		DEM: DEMHash(w, h, elev, nd), Outputs: []PartOutput{{Label: "1MB", Store: hd}, {Label: "n9", Store: hd}}}
	var f memFile
	var grid []float32
	if withGrid {
		grid = elev
	}
	wr, err := NewPartWriter(&f, ph, grid, nd)
	if err != nil {
		t.Fatal(err)
	}
	enc := quadpvs.NewEncoder(g)
	var trees []quadpvs.Tree
	for q := range 12 {
		bm := horizon.NewBitmap(w, h)
		for i := range bm.Words {
			bm.Words[i] = rng.Uint64() & rng.Uint64()
		}
		bm.Words[len(bm.Words)-1] &= 1<<(w*h%64) - 1
		var tr quadpvs.Tree
		enc.Encode(bm, &tr)
		trees = append(trees, tr)
		var root *quadpvs.Tree
		if q%4 == 3 {
			root = &trees[q]
		}
		if err := wr.Add(q, []*quadpvs.Tree{&trees[q], &trees[q]}, root); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(PartStats{Outputs: []Tally{{Quads: 12, NodesMax: 7}, {Quads: 12}}}); err != nil {
		t.Fatal(err)
	}
	return f.b, trees
}

// TestPartRoundTrip writes a partial file and reads back the header, the
// grid, every record and the tallies.
func TestPartRoundTrip(t *testing.T) {
	b, trees := testPart(t, 9, 7, true)
	r, err := NewPartReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Shards != 2 || r.Header.Outputs[1].Label != "n9" || r.Header.Outputs[0].Store.Encoding != Encoding || len(r.Elev) != 63 || !r.Nodata[1] || r.Nodata[2] {
		t.Fatalf("header %+v", r.Header)
	}
	if DEMHash(9, 7, r.Elev, r.Nodata) != r.Header.DEM {
		t.Error("grid read back does not match its hash")
	}
	for q := 0; ; q++ {
		rec, err := r.Next()
		if err == io.EOF {
			if q != 12 {
				t.Fatalf("%d records", q)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want := &trees[q]
		for _, tr := range rec.Trees {
			if rec.Q != q || tr.N != want.Len() || tr.Nodes != want.Nodes() || !slices.Equal(tr.Codes, want.Codes()) {
				t.Fatalf("record %d: quad %d, %d codes", q, rec.Q, tr.N)
			}
		}
		if (rec.Root != nil) != (q%4 == 3) {
			t.Errorf("record %d: root %v", q, rec.Root != nil)
		}
	}
	if r.Stats.Outputs[0].NodesMax != 7 {
		t.Errorf("stats %+v", r.Stats)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}

// TestPartDamaged truncates the file and flips bytes: reading fails with a
// *PartError somewhere, never reads to the end.
func TestPartDamaged(t *testing.T) {
	good, _ := testPart(t, 9, 7, false)
	readAll := func(b []byte) error {
		r, err := NewPartReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return err
		}
		for {
			if _, err := r.Next(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	if err := readAll(good); err != nil {
		t.Fatal(err)
	}
	check := func(what string, b []byte) {
		err := readAll(b)
		var pe *PartError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a *PartError", what, err)
		}
	}
	for n := 0; n < len(good); n += 53 {
		check("truncated", good[:n])
	}
	for i := 12; i < len(good); i += 41 {
		b := bytes.Clone(good)
		b[i] ^= 0x08
		check("flipped byte", b)
	}
	store, _ := testStore(t, 3, 2, false)
	check("a store", store)
}

// FuzzPartReader feeds arbitrary bytes to the partial file reader: it must
// never panic, and reads must stay within the input.
func FuzzPartReader(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.part")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	good, _ := testPart(f, 5, 4, true)
	f.Add(good)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewPartReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for range len(b) {
			if _, err := r.Next(); err != nil {
				return
			}
		}
		t.Fatal("more records than bytes")
	})
}

// TestPartHostileHeaders: partial headers claiming absurd shard counts, or
// output labels that would name files outside the join's folder or twice,
// are refused when read, quickly and in one line.
func TestPartHostileHeaders(t *testing.T) {
	hd := Header{Width: 4, Height: 4, DxM: 2, DyM: 3, Source: "test", Params: FromHorizon(horizon.ThesisParams())}
	for _, tc := range []struct {
		name   string
		shards int
		labels []string
		want   string
	}{
		{"2^40 shards", 1 << 40, []string{"1MB"}, "at most 65536 shards"},
		{"2^62 shards", 1 << 62, []string{"1MB"}, "at most 65536 shards"},
		{"10^7 shards", 10_000_000, []string{"1MB"}, "at most 65536 shards"},
		{"escaping label", 2, []string{"parts/../../ESCAPED"}, "output label"},
		{"dot label", 2, []string{".hidden"}, "output label"},
		{"duplicate labels", 2, []string{"1MB", "1MB"}, "output label \"1MB\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ph := PartHeader{Shard: 0, Shards: tc.shards, Level: 1, First: 0, Last: 1, Points: 16, HiddenSample: 16}
			for _, l := range tc.labels {
				ph.Outputs = append(ph.Outputs, PartOutput{Label: l, Store: hd})
			}
			var f memFile
			wr, err := NewPartWriter(&f, ph, make([]float32, 16), make([]bool, 16))
			if err != nil {
				t.Fatal(err)
			}
			if err := wr.Close(PartStats{Outputs: make([]Tally, len(tc.labels))}); err != nil {
				t.Fatal(err)
			}
			_, err = NewPartReader(bytes.NewReader(f.b), int64(len(f.b)))
			var fe *PartError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 300 {
				t.Errorf("got %v, want a PartError saying %q", err, tc.want)
			}
		})
	}
	for _, l := range []string{"64MB", "0.5GiB", "n267", "1MB-minloss"} {
		if !ValidLabel(l) {
			t.Errorf("label %q refused", l)
		}
	}
}
