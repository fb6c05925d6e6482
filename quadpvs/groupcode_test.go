package quadpvs

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// groupTrees builds trees of every test geometry from blobs and noise.
func groupTrees(t testing.TB) ([]Geometry, []Tree) {
	rng := rand.New(rand.NewPCG(7, 7))
	var gs []Geometry
	var ts []Tree
	for _, wh := range geometries {
		g, err := NewGeometry(wh[0], wh[1])
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 {
			gs, ts = append(gs, g), append(ts, *encode(t, g, mixedBitmap(rng, wh[0], wh[1], i)))
		}
	}
	return gs, ts
}

// coderFor returns a GroupCoder whose table is built from the trees' groups.
func coderFor(t testing.TB, ts []Tree) *GroupCoder {
	var hist [256]uint32
	for k := range ts {
		GroupHistogram(&hist, &ts[k])
	}
	c, err := NewGroupCoder(hist)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGroupCoder: every tree decodes to its own codes, node count and
// answers, through a table built from the trees' groups; a table read back
// decodes the same blocks; Huffman coding makes the blocks smaller than 2
// bits a code.
func TestGroupCoder(t *testing.T) {
	gs, ts := groupTrees(t)
	c := coderFor(t, ts)
	reader, err := ReadGroupTable(slices.Clone(c.Table()))
	if err != nil {
		t.Fatal(err)
	}
	var block, scratch []byte
	var d Tree
	codes, bytes := 0, 0
	modes := map[byte]int{}
	for k := range ts {
		tr := &ts[k]
		if block, err = c.Append(block[:0], tr); err != nil {
			t.Fatal(err)
		}
		modes[block[0]>>2]++
		codes, bytes = codes+tr.Len(), bytes+len(block)
		for _, dec := range []*GroupCoder{c, reader} {
			if scratch, err = dec.Decode(gs[k], &d, block, scratch); err != nil {
				t.Fatalf("tree %d (%d codes): %v", k, tr.Len(), err)
			}
			if d.Len() != tr.Len() || d.Nodes() != tr.Nodes() || !slices.Equal(d.Codes(), tr.Codes()) {
				t.Fatalf("tree %d: decoded %d codes, %d nodes; built %d, %d", k, d.Len(), d.Nodes(), tr.Len(), tr.Nodes())
			}
			g := gs[k]
			for l := range g.Levels() {
				qc, qr := g.QuadsAcross(l)
				if d.QuadStatus(g, l, qc/2, qr/2) != tr.QuadStatus(g, l, qc/2, qr/2) {
					t.Fatalf("tree %d: quad l%d differs", k, l)
				}
			}
		}
	}
	if bits := 8 * float64(bytes) / float64(codes); bits >= 2 || modes[groupHuffman] == 0 {
		t.Errorf("%.3f bits per code, modes %v", bits, modes)
	}
	t.Logf("%d trees, %d codes, %.3f bits per code, modes %v", len(ts), codes, 8*float64(bytes)/float64(codes), modes)
}

// TestGroupModes checks each block mode on trees made for it: a lone
// root, a single group (raw), mixed groups (Huffman), and groups a table
// built for others cannot shrink (raw).
func TestGroupModes(t *testing.T) {
	g, _ := NewGeometry(16, 16)
	var one Tree
	if err := FromCodes(g, []uint64{uint64(Visible)}, 1, &one); err != nil {
		t.Fatal(err)
	}
	// Root Unknown, four Unknown children, each with four Visible
	// children: groups 0xAA, then 0x55 four times (repeated: no).
	var two, flat Tree
	w := uint64(Unknown) | 0xAA<<2
	for k := range 4 {
		w |= 0x55 << (10 + 8*k)
	}
	if err := FromCodes(g, []uint64{w, 0}[:1], 21, &two); err != nil {
		t.Fatal(err)
	}
	// Root Unknown with four Hidden children: one group.
	if err := FromCodes(g, []uint64{uint64(Unknown) | 0x00<<2}, 5, &flat); err != nil {
		t.Fatal(err)
	}
	var hist [256]uint32
	hist[0x55] = 1000 // a table for 0x55 groups
	c, err := NewGroupCoder(hist)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tr   *Tree
		mode byte
	}{{"lone root", &one, groupRoot}, {"one group", &flat, groupRaw}, {"mixed groups", &two, groupHuffman}} {
		block, err := c.Append(nil, tc.tr)
		if err != nil {
			t.Fatal(err)
		}
		var d Tree
		if _, err := c.Decode(g, &d, block, nil); err != nil || block[0]>>2 != tc.mode || !slices.Equal(d.Codes(), tc.tr.Codes()) {
			t.Errorf("%s: mode %d (want %d), %v", tc.name, block[0]>>2, tc.mode, err)
		}
	}
	// Groups the table rates poorly go raw.
	var rare [256]uint32
	rare[0x00], rare[0x01] = 1<<20, 1<<20
	cr, _ := NewGroupCoder(rare)
	block, _ := cr.Append(nil, &two)
	var d Tree
	if _, err := cr.Decode(g, &d, block, nil); err != nil || block[0]>>2 != groupRaw || !slices.Equal(d.Codes(), two.Codes()) {
		t.Errorf("groups the table rates poorly: mode %d, %v", block[0]>>2, err)
	}
}

// TestGroupCorrupt: damaged blocks are refused with a *FormatError.
func TestGroupCorrupt(t *testing.T) {
	gs, ts := groupTrees(t)
	c := coderFor(t, ts)
	k := slices.IndexFunc(ts, func(tr Tree) bool { return tr.Len() > 200 })
	block, _ := c.Append(nil, &ts[k])
	var d Tree
	refused(t, func(bad []byte) error { _, err := c.Decode(gs[k], &d, bad, nil); return err }, append(damaged(block),
		append([]byte{block[0], 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, block[2:]...),
		[]byte{byte(Visible) | groupRoot<<2, 0},
		[]byte{byte(Unknown) | 2<<2, 1, 0x00},            // mode 2
		[]byte{byte(Unknown) | groupRaw<<2, 1, 0x02},     // an Unknown child without its group
		[]byte{byte(Unknown) | groupRaw<<2, 2, 0x00},     // a byte short
		[]byte{byte(Visible) | groupRaw<<2, 1, 0x00},     // a group under a Visible root
		[]byte{byte(Unknown) | groupHuffman<<2, 1, 0x00}, // not a Huffman stream
	)...)
	var fe *FormatError
	if _, err := ReadGroupTable([]byte{1, 2, 3}); !errors.As(err, &fe) {
		t.Errorf("table: %v", err)
	}
}

// FuzzGroupDecode: arbitrary blocks never panic, and a block accepted
// re-encodes to a block that decodes to the same codes.
func FuzzGroupDecode(f *testing.F) {
	_, ts := groupTrees(f)
	c := coderFor(f, ts)
	for _, k := range []int{0, 5, 13} {
		block, _ := c.Append(nil, &ts[k])
		f.Add(byte(16), byte(16), block)
	}
	f.Fuzz(func(t *testing.T, w, h byte, block []byte) {
		g := fuzzGeometry(w, h)
		var d, e Tree
		if _, err := c.Decode(g, &d, block, nil); err != nil {
			return
		}
		again, err := c.Append(nil, &d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Decode(g, &e, again, nil); err != nil || !slices.Equal(e.Codes(), d.Codes()) || e.Nodes() != d.Nodes() {
			t.Fatalf("re-encoded block: %v", err)
		}
	})
}

// BenchmarkGroupDecode decodes blocks of trees of about 1,000 codes (the
// urban 0.1 GiB store's mean), against copying their code words (what
// reading today's store costs).
func BenchmarkGroupDecode(b *testing.B) {
	g, _ := NewGeometry(500, 500)
	rng := rand.New(rand.NewPCG(3, 3))
	var ts []Tree
	var hist [256]uint32
	for len(ts) < 64 {
		tr := encode(b, g, blobs(rng, 500, 500))
		var capped Tree
		var cp Capper
		if err := cp.Cap(&capped, tr, 1000); err != nil {
			b.Fatal(err)
		}
		GroupHistogram(&hist, &capped)
		ts = append(ts, capped)
	}
	c, _ := NewGroupCoder(hist)
	var blocks [][]byte
	codes := 0
	for k := range ts {
		bl, _ := c.Append(nil, &ts[k])
		blocks, codes = append(blocks, bl), codes+ts[k].Len()
	}
	b.Run("group", func(b *testing.B) {
		var d Tree
		var scratch []byte
		for i := 0; b.Loop(); i++ {
			scratch, _ = c.Decode(g, &d, blocks[i%len(blocks)], scratch)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(codes)/float64(len(ts))), "ns/code")
	})
	b.Run("copy", func(b *testing.B) {
		var d Tree
		for i := 0; b.Loop(); i++ {
			ts[i%len(ts)].CopyTo(&d)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(codes)/float64(len(ts))), "ns/code")
	})
}

// damaged returns block cut, lengthened and emptied: what every decoder
// must refuse.
func damaged(block []byte) [][]byte {
	return [][]byte{nil, {0xF1}, block[:1], block[:len(block)-1], append(slices.Clone(block), 0)}
}

// refused checks that decode refuses each block with a *FormatError.
func refused(t *testing.T, decode func([]byte) error, blocks ...[]byte) {
	t.Helper()
	var fe *FormatError
	for _, bad := range blocks {
		if err := decode(bad); !errors.As(err, &fe) {
			t.Errorf("block % x…: %v, want a *FormatError", bad[:min(len(bad), 8)], err)
		}
	}
}
