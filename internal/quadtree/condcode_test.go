package quadtree

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// condPairs builds, for each test geometry, parent trees whose visible
// cells hold their child's (the union of the child's and another bitmap),
// as a quad's PVS holds its children's, and the top quads' trees alone.
func condPairs(t testing.TB) (gs []Geometry, kids, parents []Tree) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, wh := range geometries {
		g, err := NewGeometry(wh[0], wh[1])
		if err != nil {
			t.Fatal(err)
		}
		for i := range 9 {
			b := mixedBitmap(rng, wh[0], wh[1], i)
			u := mixedBitmap(rng, wh[0], wh[1], i+1)
			for k := range u.Words {
				u.Words[k] |= b.Words[k]
			}
			gs, kids, parents = append(gs, g), append(kids, *encode(t, g, b)), append(parents, *encode(t, g, u))
		}
	}
	return gs, kids, parents
}

func condCoderFor(kids, parents []Tree, top int) *CondCoder {
	var hist [CondContexts][256]uint32
	for k := range kids {
		p := &parents[k]
		if k%top == 0 {
			p = nil
		}
		CondHistogram(&hist, &kids[k], p)
	}
	return NewCondCoder(&hist)
}

// TestCondCoder: every child decodes, given its parent, to its own codes;
// one tree in four is coded as a top quad (no parent); coding given a
// parent holding the child spends under 1.5 bits per code (2 in a flat
// tree; these random bitmaps are harder than real PVSs, 0.5).
func TestCondCoder(t *testing.T) {
	gs, kids, parents := condPairs(t)
	const top = 4
	c := condCoderFor(kids, parents, top)
	var block []byte
	var d Tree
	var err error
	codes, bytes := 0, 0
	for k := range kids {
		p := &parents[k]
		if k%top == 0 {
			p = nil
		}
		if block, err = c.Append(block[:0], &kids[k], p); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Decode(gs[k], &d, block, p, nil); err != nil {
			t.Fatalf("pair %d (%d codes): %v", k, kids[k].Len(), err)
		}
		if d.Len() != kids[k].Len() || d.Nodes() != kids[k].Nodes() || !slices.Equal(d.Codes(), kids[k].Codes()) {
			t.Fatalf("pair %d: decoded %d codes, %d nodes; built %d, %d", k, d.Len(), d.Nodes(), kids[k].Len(), kids[k].Nodes())
		}
		if p != nil {
			codes, bytes = codes+kids[k].Len(), bytes+len(block)
		}
	}
	if 8*bytes >= 3*codes/2 {
		t.Errorf("given the parent %d bytes for %d codes: 1.5 bits per code or more (a flat tree stores 2)", bytes, codes)
	}
	t.Logf("%d pairs, %d codes with a parent: %.3f bits per code given it", len(kids), codes, 8*float64(bytes)/float64(codes))
	// A block decoded against another parent may fail or give another
	// tree, but must not panic (the result is not checked).
	k := slices.IndexFunc(kids, func(tr Tree) bool { return tr.Len() > 200 })
	block, _ = c.Append(nil, &kids[k], &parents[k])
	_, _ = c.Decode(gs[k], &d, block, &parents[(k+1)%len(parents)], nil)
	// Groups never seen are refused.
	var empty [CondContexts][256]uint32
	empty[0x55][0] = 1
	if _, err := NewCondCoder(&empty).Append(nil, &kids[k], &parents[k]); !errors.Is(err, ErrCondSymbol) {
		t.Errorf("unseen groups (a tree of %d codes): %v", kids[k].Len(), err)
	}
}

// TestCondCorrupt: damaged blocks are refused with a *FormatError.
func TestCondCorrupt(t *testing.T) {
	gs, kids, parents := condPairs(t)
	c := condCoderFor(kids, parents, 4)
	k := slices.IndexFunc(kids, func(tr Tree) bool { return tr.Len() > 200 })
	block, _ := c.Append(nil, &kids[k], &parents[k])
	var d Tree
	refused(t, func(bad []byte) error { _, err := c.Decode(gs[k], &d, bad, &parents[k], nil); return err }, append(damaged(block),
		[]byte{byte(Visible), 0},
		[]byte{byte(Unknown) | 4, 1, 0, 0x80, 0, 0},
	)...)
}

// FuzzCondDecode: arbitrary blocks, against a parent or none, never panic,
// and a block accepted re-encodes to one that decodes to the same codes.
func FuzzCondDecode(f *testing.F) {
	gs, kids, parents := condPairs(f)
	c := condCoderFor(kids, parents, 4)
	for _, k := range []int{1, 5, 13} {
		block, _ := c.Append(nil, &kids[k], &parents[k])
		f.Add(uint8(k), block)
	}
	f.Fuzz(func(t *testing.T, k uint8, block []byte) {
		i := int(k) % len(kids)
		var p *Tree
		if k&128 == 0 {
			p = &parents[i]
		}
		var d, e Tree
		if _, err := c.Decode(gs[i], &d, block, p, nil); err != nil {
			return
		}
		again, err := c.Append(nil, &d, p)
		if errors.Is(err, ErrCondSymbol) {
			return // a tree decoded from noise may hold groups the tables never saw
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Decode(gs[i], &e, again, p, nil); err != nil || !slices.Equal(e.Codes(), d.Codes()) {
			t.Fatalf("re-encoded block: %v", err)
		}
	})
}

// BenchmarkCondDecode decodes children given their parents (trees of
// about 1,000 codes, the parent holding the child's visible cells).
func BenchmarkCondDecode(b *testing.B) {
	g, _ := NewGeometry(500, 500)
	rng := rand.New(rand.NewPCG(3, 3))
	var kids, parents []Tree
	var cp Capper
	for len(kids) < 64 {
		bm := blobs(rng, 500, 500)
		u := blobs(rng, 500, 500)
		for k := range u.Words {
			u.Words[k] |= bm.Words[k]
		}
		var ck, cpar Tree
		if err := cp.Cap(&ck, encode(b, g, bm), 1000); err != nil {
			b.Fatal(err)
		}
		if err := cp.Cap(&cpar, encode(b, g, u), 1000); err != nil {
			b.Fatal(err)
		}
		kids, parents = append(kids, ck), append(parents, cpar)
	}
	c := condCoderFor(kids, parents, len(kids)+1)
	var blocks [][]byte
	codes := 0
	for k := range kids {
		bl, _ := c.Append(nil, &kids[k], &parents[k])
		blocks, codes = append(blocks, bl), codes+kids[k].Len()
	}
	var d Tree
	var prefs []int32
	for i := 0; b.Loop(); i++ {
		k := i % len(kids)
		prefs, _ = c.Decode(g, &d, blocks[k], &parents[k], prefs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(codes)/float64(len(kids))), "ns/code")
}

// TestCondCoderCovering: a covering coder built from a few trees codes
// every other tree (no ErrCondSymbol), where the exact coder of the same
// few fails on some, and every block decodes back; it spends little more
// than the exact coder on the trees it was built from.
func TestCondCoderCovering(t *testing.T) {
	gs, kids, parents := condPairs(t)
	var hist [CondContexts][256]uint32
	for k := 0; k < len(kids); k += 9 { // one pair in nine
		CondHistogram(&hist, &kids[k], &parents[k])
	}
	cover, exact := NewCondCoderCovering(&hist), NewCondCoder(&hist)
	var sc CondScratch
	var d Tree
	exactFailed := 0
	for k := range kids {
		if _, err := exact.Append(nil, &kids[k], &parents[k]); errors.Is(err, ErrCondSymbol) {
			exactFailed++
		}
		b, err := cover.AppendScratch(nil, &kids[k], &parents[k], &sc)
		if err != nil {
			t.Fatalf("pair %d: %v", k, err)
		}
		if _, err := cover.Decode(gs[k], &d, b, &parents[k], nil); err != nil || !equalTrees(&d, &kids[k]) {
			t.Fatalf("pair %d: decoded %v, equal %v", k, err, equalTrees(&d, &kids[k]))
		}
	}
	if exactFailed == 0 {
		t.Fatal("the exact coder of one pair in nine coded every pair: the test shows nothing")
	}
	var nc, ne int
	for k := 0; k < len(kids); k += 9 {
		bc, _ := cover.Append(nil, &kids[k], &parents[k])
		be, _ := exact.Append(nil, &kids[k], &parents[k])
		nc, ne = nc+len(bc), ne+len(be)
	}
	if nc > ne*11/10+8 {
		t.Errorf("covering coder: %d bytes for what the exact one codes in %d", nc, ne)
	}
	t.Logf("exact coder failed %d of %d pairs; covering %d bytes, exact %d on its own pairs", exactFailed, len(kids), nc, ne)
}
