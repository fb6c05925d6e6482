package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"100MB": 100e6, "0.25GB": 250e6, "1GiB": 1 << 30, "512KiB": 512 << 10, "1e6B": 1e6,
		" 2 mb ": 2e6, "0.1gib": (1 << 30) / 10, "7b": 7, "3kB": 3000,
	} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MB", "-1GB", "0B", "1XB", "NaN", "1e300GB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A bare number is refused, naming units.
	for _, bare := range []string{"10", "1e6", "0.5"} {
		if _, err := ParseBytes(bare); err == nil || !strings.Contains(err.Error(), "no unit: give one, e.g. "+bare+"MB") {
			t.Errorf("%q: %v", bare, err)
		}
	}
	if l, err := ParseBytesList("0.1GB,0.25GB,0.5GB,1GB"); err != nil || len(l) != 4 || l[3] != 1e9 {
		t.Errorf("list: %v %v", l, err)
	}
}

// TestThesisTable45 reproduces the thesis's node caps for its Martian
// terrain (133,773 quads), reading GB as 2^30 bytes as Table 4.5 does.
func TestThesisTable45(t *testing.T) {
	for gb, want := range map[float64]int{0.1: 267, 0.25: 668, 0.5: 1337, 1.0: 2675} {
		c, err := ThesisNodeCap(int64(gb*(1<<30)), 133773)
		if err != nil || c.Nodes != want {
			t.Errorf("%.2f GB: N = %d (%v), want %d", gb, c.Nodes, err, want)
		}
	}
	if _, err := ThesisNodeCap(100, 133773); !errors.Is(err, ErrBudget) {
		t.Errorf("tiny budget: %v", err)
	}
}

func TestCapForBudget(t *testing.T) {
	for _, b := range []int64{5e6, 10e6, 100e6, 1e9} {
		const quads = 133200
		c, err := CapForBudget(b, quads)
		if err != nil {
			t.Fatal(err)
		}
		if used := int64(quads) * int64(QuadOverhead+quadtree.BytesFor(c.Codes)); used > b {
			t.Errorf("budget %d: cap %d codes uses %d bytes", b, c.Codes, used)
		}
		if more := int64(quads) * int64(QuadOverhead+quadtree.BytesFor(c.Codes+64)); more <= b {
			t.Errorf("budget %d: cap %d codes leaves room for 64 more", b, c.Codes)
		}
	}
	_, err := CapForBudget(1000, 133200)
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "minimum is 4.80 MB") {
		t.Errorf("small budget: %v", err)
	}
}

// memFile is an in-memory File.
type memFile struct{ b []byte }

func (m *memFile) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }
func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	copy(m.b[off:], p)
	return len(p), nil
}
func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// testStore writes a small store of random trees (every quad of a w×h
// geometry) and returns its bytes with the trees by quad index.
func testStore(t testing.TB, w, h int, nodata bool) ([]byte, []quadpvs.Tree) {
	return testStoreVersion(t, w, h, nodata, VersionAligned)
}

// testStoreVersion is testStore in the given format version (version 3:
// the layout of stores read into memory).
func testStoreVersion(t testing.TB, w, h int, nodata bool, version uint32) ([]byte, []quadpvs.Tree) {
	g, _ := quadpvs.NewGeometry(w, h)
	hier := quadpvs.NewHierarchy(g)
	rng := rand.New(rand.NewPCG(1, 2))
	elev := make([]float32, w*h)
	var nd []bool
	if nodata {
		nd = make([]bool, w*h)
		nd[3] = true
	}
	for i := range elev {
		elev[i] = float32(rng.IntN(1000)) / 10
	}
	hd := Header{Width: w, Height: h, DxM: 2, DyM: 3, Source: "test", Params: FromHorizon(horizon.ThesisParams()), BudgetBytes: 12345, Cap: Cap{Codes: 9999}}
	var f memFile
	wr, err := newWriter(&f, hd, hier.Quads(), elev, nd, version)
	if err != nil {
		t.Fatal(err)
	}
	enc := quadpvs.NewEncoder(g)
	trees := make([]quadpvs.Tree, hier.Quads())
	for q := hier.Quads() - 1; q >= 0; q-- { // any order
		bm := horizon.NewBitmap(w, h)
		for i := range bm.Words {
			bm.Words[i] = rng.Uint64() & rng.Uint64()
		}
		bm.Words[len(bm.Words)-1] &= 1<<(w*h%64) - 1
		if w*h%64 == 0 {
			bm.Words[len(bm.Words)-1] = rng.Uint64()
		}
		enc.Encode(bm, &trees[q])
		if err := wr.Add(q, &trees[q]); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Add(0, &trees[0]); err == nil {
		t.Fatal("quad added twice")
	}
	if err := wr.Close(Stats{Quads: hier.Quads(), HiddenKept: 0.5}); err != nil {
		t.Fatal(err)
	}
	return f.b, trees
}

func TestStoreRoundTrip(t *testing.T) {
	for _, nd := range []bool{false, true} {
		b, trees := testStore(t, 13, 9, nd)
		s, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if s.Width != 13 || s.DyM != 3 || s.BudgetBytes != 12345 || s.Cap.Codes != 9999 || s.HiddenKept != 0.5 || s.Params.Sectors != 1024 {
			t.Errorf("header/stats: %+v %+v", s.Header, s.Stats)
		}
		if (s.Nodata != nil) != nd || (nd && (!s.Nodata[3] || s.Nodata[4])) || len(s.Elev) != 117 {
			t.Errorf("nodata %v, %d elevations", s.Nodata, len(s.Elev))
		}
		var w quadpvs.Walker
		for q := range trees {
			got := s.Hierarchy.PVS(q)
			if got.Len() != trees[q].Len() || got.Nodes() != trees[q].Nodes() ||
				w.HiddenCells(s.Hierarchy.G, &got) != w.HiddenCells(s.Hierarchy.G, &trees[q]) {
				t.Fatalf("quad %d differs after the round trip", q)
			}
		}
	}
}

// load decodes b and checks every tree (Store.Check): the error of
// either.
func load(b []byte) (*Store, error) {
	s, err := Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return s, s.Check()
}

func TestDecodeRejects(t *testing.T) {
	for _, v := range []uint32{VersionAligned, VersionShared} {
		testDecodeRejects(t, v)
	}
}

func testDecodeRejects(t *testing.T, version uint32) {
	good, _ := testStoreVersion(t, 13, 9, true, version)
	check := func(name string, b []byte) {
		t.Helper()
		_, err := load(b)
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrNotStore) {
			t.Errorf("version %d, %s: got %v, want a *FormatError", version, name, err)
		}
	}
	for n := 0; n < len(good); n += 1 + n/7 {
		check("truncated", good[:n])
	}
	for i := 12; i < len(good); i += 97 {
		b := bytes.Clone(good)
		b[i] ^= 0x40
		check(fmt.Sprintf("byte %d flipped", i), b)
	}
	foreign := bytes.Clone(good)
	copy(foreign, "GIF89a..")
	check("foreign", foreign)
	next := bytes.Clone(good)
	next[8] = Version + 1
	check("next version", next)
	if _, err := Decode(bytes.NewReader(next)); !strings.Contains(err.Error(), fmt.Sprintf("version %d", Version+1)) {
		t.Errorf("version error does not name the version: %v", err)
	}
}

// sharedStore writes a store of a w×h hierarchy whose trees repeat (each
// quad's tree is one of three patterns), shared (quadpvs.Hierarchy.Share),
// and returns its bytes and the hierarchy before sharing.
func sharedStore(t testing.TB, w, h int) ([]byte, *quadpvs.Hierarchy) {
	g, _ := quadpvs.NewGeometry(w, h)
	flat := quadpvs.NewHierarchy(g)
	rng := rand.New(rand.NewPCG(3, 4))
	enc := quadpvs.NewEncoder(g)
	var pats [3]quadpvs.Tree
	for i := range pats {
		bm := horizon.NewBitmap(w, h)
		for c := range w * h {
			if (c/w)%(i+2) == 0 || rng.IntN(9) == 0 { // rows, and noise
				bm.Set(c%w, c/w, true)
			}
		}
		enc.Encode(bm, &pats[i])
	}
	for l := range g.Levels() {
		cols, rows := g.QuadsAcross(l)
		for y := range rows {
			for x := range cols {
				flat.Set(l, x, y, &pats[(x+y+l)%3])
			}
		}
	}
	sh, st, err := flat.Share(quadpvs.ShareOptions{MinCodes: 5})
	if err != nil || st.Subtrees == 0 {
		t.Fatalf("share: %+v, %v", st, err)
	}
	hd := Header{Width: w, Height: h, DxM: 2, DyM: 3, Source: "test", Params: FromHorizon(horizon.ThesisParams()),
		BudgetBytes: st.BytesShare, Shared: sh.SharedSubtrees(), RefBits: quadtree.FlatOf(sh).RefBits}
	var f memFile
	wr, err := NewWriter(&f, hd, sh.Quads(), make([]float32, w*h), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(Stats{}); err == nil {
		t.Fatal("closed without its trees")
	}
	if err := wr.AddHierarchy(sh); err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(Stats{Quads: sh.Quads(), MemoryBytes: int64(sh.Bytes())}); err != nil {
		t.Fatal(err)
	}
	return f.b, flat
}

// TestSharedStoreRoundTrip: a shared store reads back to trees that expand
// to the hierarchy before sharing; the references survive; a store without
// its REFS section is refused.
func TestSharedStoreRoundTrip(t *testing.T) {
	b, flat := sharedStore(t, 21, 14)
	s, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Hierarchy
	if refs := len(quadtree.FlatOf(h).Refs); h.SharedSubtrees() == 0 || h.SharedSubtrees() != s.Header.Shared || refs == 0 || s.MemoryBytes != int64(h.Bytes()) {
		t.Fatalf("%d shared subtrees (header %d), %d references, %d bytes (stats %d)", h.SharedSubtrees(), s.Header.Shared, refs, h.Bytes(), s.MemoryBytes)
	}
	var ex quadpvs.Tree
	for q := range flat.Quads() {
		want, got := flat.PVS(q), h.PVS(q)
		got.CopyTo(&ex)
		if !slices.Equal(ex.Codes(), want.Codes()) || got.Nodes() != want.Nodes() {
			t.Fatalf("quad %d differs after the round trip", q)
		}
	}
	// Without REFS: drop the section (its header and payload) and rewrite
	// nothing else; the checksums of the rest still hold.
	at := bytes.Index(b, []byte(tagRefs))
	n := int(binary.LittleEndian.Uint64(b[at+8:]))
	cut := append(bytes.Clone(b[:at]), b[at+sectionHeaderSize+n:]...)
	if _, err := Decode(bytes.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "missing REFS") {
		t.Errorf("store without REFS: %v", err)
	}
}

// FuzzOpenStore feeds arbitrary bytes to the store decoder: it must never
// panic, and a store it accepts must answer queries on every quad.
func FuzzOpenStore(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.pvs")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	good, _ := testStore(f, 5, 4, true)
	f.Add(good)
	coded, _ := codedStore(f, 5, 4)
	f.Add(coded)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, errSized := DecodeSize(bytes.NewReader(b), int64(len(b)))
		s, err := Decode(bytes.NewReader(b))
		if (err == nil) != (errSized == nil) {
			t.Fatalf("Decode %v, DecodeSize %v", err, errSized)
		}
		if err != nil {
			return
		}
		exercise(s)
		var fe *FormatError
		if err := s.Check(); err != nil && !errors.As(err, &fe) {
			t.Fatalf("Check: %v, want a *FormatError", err)
		}
	})
}

// TestWriteSeeds regenerates the fuzz seeds in testdata with
// UPDATE_SEEDS=1: stores and partial files of the current version, and the
// crafted stores of TestHostileStores. tiny.pvs and small.pvs (version 1),
// tiny-v2.pvs and small-v2.pvs (version 2), small-v3.pvs (version 3) and
// coded.pvs (version 4) stay as they are, for the reader of old stores.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv("UPDATE_SEEDS") == "" {
		t.Skip("set UPDATE_SEEDS=1 to rewrite testdata/*.pvs and *.part")
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		w, h int
	}{{"tiny-v5.pvs", 3, 2}, {"small-v5.pvs", 9, 7}, {"tiny.part", 3, 2}, {"small.part", 9, 7}, {"shared.pvs", 12, 10}, {"coded-v5.pvs", 11, 6}} {
		var b []byte
		if tc.name == "shared.pvs" {
			b, _ = sharedStore(t, tc.w, tc.h)
		} else if tc.name == "coded-v5.pvs" {
			b, _ = codedStore(t, tc.w, tc.h)
		} else if strings.HasSuffix(tc.name, ".part") {
			b, _ = testPart(t, tc.w, tc.h, tc.w == 9)
		} else {
			b, _ = testStore(t, tc.w, tc.h, tc.w == 9)
		}
		write(tc.name, b)
	}
	for i, tc := range hostileStores(t) {
		write(fmt.Sprintf("hostile-%02d.pvs", i), tc.b)
	}
}

// BenchmarkDecode loads a 64² store of random trees (about 7 MB) from
// memory and reports MB/s of store bytes.
func BenchmarkDecode(b *testing.B) {
	data, _ := testStore(b, 64, 64, false)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
