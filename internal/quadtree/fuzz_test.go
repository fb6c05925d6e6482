package quadtree

import (
	"encoding/binary"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
)

// fuzzGeometry takes a terrain size of 1…40 × 1…40 cells from two bytes.
func fuzzGeometry(a, b byte) Geometry {
	g, _ := NewGeometry(int(a)%40+1, int(b)%40+1)
	return g
}

// fuzzBitmap fills a bitmap of g's size from data, cycling through it.
func fuzzBitmap(g Geometry, data []byte) horizon.Bitmap {
	b := horizon.NewBitmap(g.Width, g.Height)
	if len(data) == 0 {
		return b
	}
	for i := range g.Width * g.Height {
		if data[(i/8)%len(data)]>>(i%8)&1 != 0 {
			b.Words[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return b
}

// FuzzDecode feeds arbitrary code words to FromCodes: it must never panic,
// and a tree it accepts must answer queries consistently with its expansion
// and re-encode to the same set of visible cells.
func FuzzDecode(f *testing.F) {
	f.Add(byte(4), byte(4), uint16(1), []byte{1, 0, 0, 0, 0, 0, 0, 0})
	f.Add(byte(4), byte(2), uint16(5), []byte{0x92, 0, 0, 0, 0, 0, 0, 0})
	f.Add(byte(2), byte(4), uint16(9), []byte{0x46, 0x0F, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, w, h byte, n uint16, data []byte) {
		g := fuzzGeometry(w, h)
		codes := make([]uint64, len(data)/8)
		for i := range codes {
			codes[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
		// The cheap check used when loading stores must make every query and
		// walk safe, whatever the codes say.
		if int(n) > 0 && len(codes) == (int(n)+31)/32 {
			loose := Tree{codes: codes, n: int(n)}
			loose.buildRank()
			if checkShape(g, &loose) == nil {
				var wk Walker
				wk.Bitmap(g, &loose, horizon.Bitmap{})
				wk.HiddenCells(g, &loose)
				for l := range g.Levels() {
					qc, qr := g.QuadsAcross(l)
					loose.QuadStatus(g, l, qc-1, qr-1)
				}
			}
		}
		var tr Tree
		if err := FromCodes(g, codes, int(n), &tr); err != nil {
			var view Tree
			CheckCodes(g, codes, int(n), 0, &view) // must not panic
			return
		}
		if err := checkShape(g, &tr); err != nil {
			t.Fatalf("FromCodes accepts what checkShape rejects: %v", err)
		}
		var view Tree
		if err := CheckCodes(g, codes, int(n), tr.Nodes(), &view); err != nil {
			t.Fatalf("FromCodes accepts what CheckCodes rejects: %v", err)
		}
		if CheckCodes(g, codes, int(n), tr.Nodes()+1, &view) == nil {
			t.Fatal("CheckCodes accepts a wrong node count")
		}
		var wk Walker
		bm := wk.Bitmap(g, &tr, horizon.Bitmap{})
		for r := range g.Height {
			for c := range g.Width {
				if (tr.CellStatus(g, c, r) == Visible) != bm.Visible(c, r) {
					t.Fatalf("cell (%d,%d) query disagrees with expansion", c, r)
				}
			}
		}
		var re Tree
		NewEncoder(g).Encode(bm, &re)
		if re.Nodes() > tr.Nodes() {
			t.Fatalf("canonical re-encoding has %d nodes, decoded tree %d", re.Nodes(), tr.Nodes())
		}
		if !equalBitmaps(wk.Bitmap(g, &re, horizon.Bitmap{}), bm) {
			t.Fatal("re-encoding changes the visible set")
		}
	})
}

// FuzzMerge checks lossless merges and Union against the bitmap OR, and
// lossy merges for conservativeness, on arbitrary bitmaps.
func FuzzMerge(f *testing.F) {
	f.Add(byte(7), byte(5), []byte{0xF0, 0x0F}, []byte{0x01})
	f.Add(byte(39), byte(1), []byte{0xFF}, []byte{0x00, 0x81})
	f.Add(byte(16), byte(16), []byte{0x00}, []byte{0x00})
	f.Fuzz(func(t *testing.T, w, h byte, a, b []byte) {
		g := fuzzGeometry(w, h)
		ba, bb := fuzzBitmap(g, a), fuzzBitmap(g, b)
		enc := NewEncoder(g)
		var ta, tb, ll, ly Tree
		enc.Encode(ba, &ta)
		enc.Encode(bb, &tb)
		var m Merger
		var wk Walker
		m.Merge(&ll, &ta, &tb, Lossless)
		union := orBitmaps(ba, bb)
		if !equalBitmaps(wk.Bitmap(g, &ll, horizon.Bitmap{}), union) {
			t.Fatal("lossless merge is not the union")
		}
		m.Merge(&ly, &ta, &tb, Lossy)
		lossy := wk.Bitmap(g, &ly, horizon.Bitmap{})
		for i := range union.Words {
			if union.Words[i]&^lossy.Words[i] != 0 {
				t.Fatal("lossy merge hides a visible cell")
			}
		}
		var d Tree
		if err := FromCodes(g, ll.Codes(), ll.Len(), &d); err != nil {
			t.Fatalf("merged tree does not decode: %v", err)
		}
		// The Union of both trees answers every cell as the bitmap OR.
		var u Union
		u.Reset(g)
		u.Add(&ta)
		u.Add(&tb)
		for r := range g.Height {
			for c := range g.Width {
				if got, want := u.QuadStatus(0, c, r) == Visible, union.Visible(c, r); got != want {
					t.Fatalf("Union cell (%d,%d) visible %v, want %v", c, r, got, want)
				}
			}
		}
	})
}
