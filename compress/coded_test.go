package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/internal/blockindex"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
	"github.com/klauspost/compress/zstd"
)

// codedStore returns a coded store (version 5) of testStore's trees, with
// the flat store it was coded from.
func codedStore(t testing.TB, w, h int) (coded []byte, flat *Store) {
	t.Helper()
	b, _ := testStore(t, w, h, true)
	flat, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := flat.Hierarchy.Code(quadpvs.MinCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	// testStore's trees are not capped: give the header their largest as
	// its cap, the ceiling a coded store's reader holds blocks to.
	flat.Cap = Cap{Codes: int(slices.Max(quadtree.FlatOf(flat.Hierarchy).Len))}
	var f memFile
	if err := WriteCoded(&f, flat.Header, ch, flat.Elev, flat.Nodata, Stats{Quads: ch.Quads(), MemoryBytes: int64(ch.Bytes())}); err != nil {
		t.Fatal(err)
	}
	if err := WriteCoded(&f, flat.Header, flat.Hierarchy, flat.Elev, flat.Nodata, Stats{}); err == nil {
		t.Fatal("WriteCoded took a flat hierarchy")
	}
	return f.b, flat
}

// TestCodedStoreRoundTrip: a coded store is version 5, reads back to the
// flat store's trees, grid and header, and its memory is what it says; the
// version 4 coded seed still reads and checks.
func TestCodedStoreRoundTrip(t *testing.T) {
	b, flat := codedStore(t, 13, 9)
	if _, v, _ := parseFile(t, b); v != VersionAligned {
		t.Fatalf("coded store of version %d, want %d", v, VersionAligned)
	}
	s, err := DecodeSize(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Hierarchy
	if s.Encoding != EncodingCoded || s.CacheBytes != quadpvs.MinCacheBytes || quadtree.CodingOf(h) == nil || s.MemoryBytes != int64(h.Bytes()) {
		t.Fatalf("encoding %q, cache %d, coded %v, memory %d (stats %d)", s.Encoding, s.CacheBytes, quadtree.CodingOf(h) != nil, h.Bytes(), s.MemoryBytes)
	}
	if !slices.Equal(s.Elev, flat.Elev) || !slices.Equal(s.Nodata, flat.Nodata) || s.Cap != flat.Cap || s.Width != flat.Width {
		t.Fatal("grid or header differs from the flat store's")
	}
	for q := range h.Quads() {
		want, got := flat.Hierarchy.PVS(q), h.PVS(q)
		if !slices.Equal(got.Codes(), want.Codes()) || got.Nodes() != want.Nodes() {
			t.Fatalf("quad %d differs after the round trip", q)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	exercise(s)
	v4, err := os.ReadFile("testdata/coded.pvs")
	if err != nil {
		t.Fatal(err)
	}
	if _, v, _ := parseFile(t, v4); v != VersionCoded4 {
		t.Fatalf("testdata/coded.pvs is version %d, the seed should stay a version 4 store", v)
	}
	s4, err := Decode(bytes.NewReader(v4))
	if err != nil || quadtree.CodingOf(s4.Hierarchy) == nil || s4.CacheTrees == 0 {
		t.Fatalf("version 4 coded store: %v", err)
	}
	if err := s4.Check(); err != nil {
		t.Fatal(err)
	}
	exercise(s4)
}

// TestHostileCodedStores: coded stores with a damaged table, index or
// block, a foreign cache or version, or a section missing, are refused
// with a *FormatError naming the section or field, at open or when the
// trees are read (Check).
func TestHostileCodedStores(t *testing.T) {
	good, _ := codedStore(t, 13, 9)
	magic, _, secs := parseFile(t, good)
	edit := func(tag string, f func(p []byte) []byte) []byte {
		c := slices.Clone(secs)
		i := find(c, tag)
		c[i].payload = f(bytes.Clone(c[i].payload))
		c[i].raw = uint64(len(c[i].payload))
		return assemble(magic, Version, c)
	}
	head := func(f func(h *Header)) []byte {
		c := slices.Clone(secs)
		editHeader(c, f)
		return assemble(magic, Version, c)
	}
	drop := func(tag string) []byte {
		c := slices.Clone(secs)
		i := find(c, tag)
		return assemble(magic, Version, append(c[:i:i], c[i+1:]...))
	}
	cblk := secs[find(secs, tagCblk)].payload
	cidx := secs[find(secs, tagCidx)].payload
	entry := func(q int) (uint64, uint64) { return blockindex.At(binary.LittleEndian.Uint64(cidx[8*q:])) }
	big := 0 // the quad with the longest block
	for q := range len(cidx) / 8 {
		if _, n := entry(q); n > func() uint64 { _, m := entry(big); return m }() {
			big = q
		}
	}
	bigOff, bigLen := entry(big)
	setEntry := func(p []byte, q int, off, n uint64) []byte {
		e, _ := blockindex.Entry(off, n)
		binary.LittleEndian.PutUint64(p[8*q:], e)
		return p
	}
	for _, tc := range []struct {
		name, want string
		b          []byte
	}{
		{"table sums wrong", "CTAB", edit(tagCtab, func(p []byte) []byte { p[0]++; return p })},
		{"table cut", "CTAB", edit(tagCtab, func(p []byte) []byte { return p[:len(p)-2] })},
		{"block past the blocks", "CIDX", edit(tagCidx, func(p []byte) []byte { return setEntry(p, 0, uint64(len(cblk)), 4) })},
		{"empty block", "CIDX", edit(tagCidx, func(p []byte) []byte { return setEntry(p, 1, 0, 0) })},
		{"block cut short", "CBLK", edit(tagCidx, func(p []byte) []byte { return setEntry(p, big, bigOff, bigLen-1) })},
		{"blocks short", "CBLK section: quadpvs: quad", edit(tagCblk, func(p []byte) []byte { return p[:bigOff+bigLen-1] })},
		{"a block's rANS state", "CBLK", edit(tagCblk, func(p []byte) []byte { p[bigOff+bigLen-1] ^= 0x5a; return p })},
		{"groups over the ceiling", "ceiling", edit(tagCblk, func(p []byte) []byte {
			b := p[bigOff : bigOff+bigLen]
			b[0] |= 4
			b[1], b[2] = 0xff, 0x7f // 16,383 groups in a uvarint of 2 bytes
			return p
		})},
		{"index of the wrong size", "CIDX section", edit(tagCidx, func(p []byte) []byte { return p[:len(p)-8] })},
		{"cache of a byte", "a cache of 1 trees or 0 bytes|cache of 0 trees or 1 bytes", head(func(h *Header) { h.CacheBytes = 1 })},
		{"cache of 3 trees", "shared subtrees or a cache counted in trees", head(func(h *Header) { h.CacheBytes, h.CacheTrees = 0, 4 })},
		{"cache far over the file", "want at most 4 times the file", head(func(h *Header) { h.CacheBytes = 1 << 40 })},
		{"no SUMS", "missing SUMS", func() []byte {
			b := assemble(magic, Version, secs)
			for at := 32; at < len(b); at += 32 {
				if string(b[at:at+4]) == tagSums {
					n := (sectionHeaderSize + int(binary.LittleEndian.Uint64(b[at+8:])) + 31) &^ 31
					return append(b[:at:at], b[at+n:]...)
				}
			}
			panic("no SUMS")
		}()},
		{"cache of 3 trees", "cache of 3", head(func(h *Header) { h.CacheTrees = 3 })},
		{"coded and shared", "shared", head(func(h *Header) { h.Shared, h.RefBits = 1, 1 })},
		{"flat with a cache", "cache of 8", head(func(h *Header) { h.Encoding, h.CacheTrees = Encoding, 8 })},
		{"coded in version 3", "version 3", assemble(magic, 3, secs)},
		{"a flat store's TREE in a coded one", "TREE section in a coded store", func() []byte {
			fb, _ := testStore(t, 13, 9, true)
			_, _, fsecs := parseFile(t, fb)
			end := len(secs) - 1
			return assemble(magic, Version, append(slices.Clone(secs[:end]), fsecs[find(fsecs, tagTree)], secs[end]))
		}()},
		{"no CBLK", "missing CBLK", drop(tagCblk)},
		{"no CTAB", "missing CTAB", drop(tagCtab)},
		{"CBLK in zstd", "CBLK section: 3324 bytes, codec 1; want raw|CBLK section: ", func() []byte {
			c := slices.Clone(secs)
			i := find(c, tagCblk)
			enc, _ := zstd.NewWriter(nil)
			c[i].payload, c[i].codec = enc.EncodeAll(c[i].payload, nil), codecZstd
			return assemble(magic, Version, c)
		}()},
		{"a flat store with CBLK", "CBLK section in a flat store", func() []byte {
			fb, _ := testStore(t, 13, 9, true)
			fm, _, fsecs := parseFile(t, fb)
			end := len(fsecs) - 1 // before END
			return assemble(fm, Version, append(fsecs[:end:end], secs[find(secs, tagCblk)], fsecs[end]))
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := DecodeSize(bytes.NewReader(tc.b), int64(len(tc.b)))
			if err == nil {
				err = s.Check()
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !containsAny(err.Error(), tc.want) {
				t.Fatalf("got %v, want a *FormatError with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
		})
	}
}

// TestCodedWriterResume: a coded store written in two processes — the
// first stopped after a Checkpoint (its file cut back to the checkpoint's
// bytes, as a kill leaves it with more), the second resumed from it — is
// the store one writer writes, byte for byte; a state that does not hold
// together is refused.
func TestCodedWriterResume(t *testing.T) {
	b, _ := testStore(t, 40, 33, true)
	flat, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := flat.Hierarchy.Code(quadpvs.MinCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	c := quadtree.CodingOf(ch)
	hd := flat.Header
	hd.CacheBytes = c.CacheBytes
	write := func(w *CodedWriter, from, to int) {
		t.Helper()
		for q := from; q < to; q++ {
			off, n := blockindex.At(c.Index[q])
			if err := w.Add(q, c.Blocks[off:off+n]); err != nil {
				t.Fatal(err)
			}
		}
	}
	st := Stats{Quads: ch.Quads()}
	var whole memFile
	w, err := NewCodedWriter(&whole, hd, ch.Quads(), c.Coder.Table(), flat.Elev, flat.Nodata)
	if err != nil {
		t.Fatal(err)
	}
	write(w, 0, ch.Quads())
	w.SetHeader(hd)
	if err := w.Close(st); err != nil {
		t.Fatal(err)
	}
	for _, stop := range []int{0, 1, ch.Quads() / 3, ch.Quads() - 1} {
		var first memFile
		w, err := NewCodedWriter(&first, hd, ch.Quads(), c.Coder.Table(), flat.Elev, flat.Nodata)
		if err != nil {
			t.Fatal(err)
		}
		write(w, 0, stop)
		s, err := w.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		// The index as a resumed bake keeps it: the blocks' quads and
		// lengths in the order added.
		q := 0
		if err := ReplayIndex(&s, ch.Quads(), func() (int, uint64, bool) {
			if q == stop {
				return 0, 0, false
			}
			_, n := blockindex.At(c.Index[q])
			q++
			return q - 1, n, true
		}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s.Index, w.ix.bytes()) || !slices.Equal(s.Set, w.ix.set) {
			t.Fatalf("stopped after %d quads: the replayed index differs", stop)
		}
		write(w, stop, stop+1) // lost with the process
		w.bw.Flush()
		second := memFile{b: slices.Clone(first.b[:s.Pos])}
		r, err := ResumeCodedWriter(&second, s, ch.Quads())
		if err != nil {
			t.Fatal(err)
		}
		write(r, stop, ch.Quads())
		r.SetHeader(hd)
		if err := r.Close(st); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(second.b, whole.b) {
			t.Errorf("stopped after %d quads: the resumed store differs", stop)
		}
		s.Pos--
		if _, err := ResumeCodedWriter(&second, s, ch.Quads()); err == nil {
			t.Error("a state one byte short was taken")
		}
	}
	if _, err := Decode(bytes.NewReader(whole.b)); err != nil {
		t.Fatal(err)
	}
}

// TestCodedCeiling: 8 times the mean a budget holds at 16 codes per byte,
// at least 64, at most CodedMaxCodes: the urban benchmark window's 0.1 GiB
// store (333,459 quads) is held at 6,144 codes, where 8 × the mean was
// 41,216; a 4097² map's 1 GiB store (22,386,017 quads) keeps 8 × its mean.
func TestCodedCeiling(t *testing.T) {
	for _, tc := range []struct {
		budget int64
		quads  int
		want   int
	}{
		{1 << 30 / 10, 333459, CodedMaxCodes},
		{1 << 30, 22386017, 6139},
		{1 << 16, 1 << 20, 64},
	} {
		if got := CodedCeiling(tc.budget, tc.quads); got != tc.want {
			t.Errorf("CodedCeiling(%d, %d) = %d, want %d", tc.budget, tc.quads, got, tc.want)
		}
	}
	if 8*16*(int64(1<<30)/10)/333459 != 41216 {
		t.Errorf("8 × the urban window's mean is %d", 8*16*(int64(1<<30)/10)/333459)
	}
}
