package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// resum makes the checksums of a version 5 file b valid wherever its
// section headers can be followed (a fuzzer's input then reaches the
// checks behind them): every section header's own and its payload's, and
// the SUMS section's chunks. It changes b in place and returns it.
func resum(b []byte) []byte {
	if len(b) < sectionHeaderSize || string(b[:8]) != Magic {
		return b
	}
	off := int64(sectionHeaderSize)
	for off+sectionHeaderSize <= int64(len(b)) {
		h := b[off : off+sectionHeaderSize]
		stored := binary.LittleEndian.Uint64(h[8:])
		start := off + sectionHeaderSize
		if stored > uint64(int64(len(b))-start) {
			binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
			return b
		}
		p := b[start : start+int64(stored)]
		if string(h[:4]) == tagSums && len(p) >= 16 {
			binary.LittleEndian.PutUint64(p[8:], uint64(off))
			for c, i := int64(0), 16; c < off && i+4 <= len(p); c, i = c+sumChunk, i+4 {
				binary.LittleEndian.PutUint32(p[i:], crc32.Checksum(b[c:min(c+sumChunk, off)], castagnoli))
			}
		}
		binary.LittleEndian.PutUint32(h[24:], crc32.Checksum(p, castagnoli))
		binary.LittleEndian.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
		if string(h[:4]) == tagEnd {
			return b
		}
		off = (start + int64(stored) + 31) &^ 31
	}
	return b
}

// FuzzCodedStore feeds coded stores whose checksums are made valid (resum)
// to the reader: it must refuse them with a *FormatError, or read every
// tree (Store.Check) keeping, after that, at most 40 bytes per input byte
// besides the store's cache, and allocating in all at most 1 KiB per input
// byte (decoding takes time and memory in proportion to the file).
func FuzzCodedStore(f *testing.F) {
	seed, _ := codedStore(f, 13, 9)
	f.Add(seed)
	small, _ := codedStore(f, 5, 3)
	f.Add(small)
	f.Fuzz(func(t *testing.T, b []byte) {
		b = resum(bytes.Clone(b))
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		s, err := Decode(bytes.NewReader(b))
		var fe *FormatError
		if err != nil {
			if !errors.As(err, &fe) {
				t.Fatalf("Decode: %v, want a *FormatError", err)
			}
			return
		}
		if err := s.Check(); err != nil && !errors.As(err, &fe) {
			t.Fatalf("Check: %v, want a *FormatError", err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		kept := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
		if limit := 40*int64(len(b)) + s.CacheBytes + 4<<20; kept > limit {
			t.Fatalf("a %d-byte store keeps %d bytes after its trees were read, over %d", len(b), kept, limit)
		}
		if total := m1.TotalAlloc - m0.TotalAlloc; total > 1024*uint64(len(b))+16<<20 {
			t.Fatalf("a %d-byte store allocated %d bytes to be read", len(b), total)
		}
		runtime.KeepAlive(s)
	})
}

// TestCodedStripMemory: a coded store of a strip (2048×1 cells) whose every
// tree holds as many codes as the strip allows — the shape of the round-3
// audit's store that read at 573 bytes per file byte — reads every tree
// and answers queries keeping at most 40 bytes per file byte besides its
// cache, and refuses the trees of a crafted store that code quads outside
// the terrain.
func TestCodedStripMemory(t *testing.T) {
	g, _ := quadpvs.NewGeometry(2048, 1)
	h := quadpvs.NewHierarchy(g)
	enc := quadpvs.NewEncoder(g)
	bm := horizon.NewBitmap(2048, 1)
	for c := 0; c < 2048; c += 2 {
		bm.Set(c, 0, true) // every other cell: the deepest tree the strip has
	}
	var tr quadpvs.Tree
	if err := enc.Encode(bm, &tr); err != nil {
		t.Fatal(err)
	}
	for l := range g.Levels() {
		c, r := g.QuadsAcross(l)
		for y := range r {
			for x := range c {
				h.Set(l, x, y, &tr)
			}
		}
	}
	ch, err := h.Code(quadpvs.MinCacheBytes)
	if err != nil {
		t.Fatal(err)
	}
	hd := Header{Width: 2048, Height: 1, DxM: 10, DyM: 10, Params: FromHorizon(horizon.ThesisParams())}
	var f memFile
	if err := WriteCoded(&f, hd, ch, make([]float32, 2048), nil, Stats{Quads: h.Quads()}); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s, err := Decode(bytes.NewReader(f.b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	exercise(s)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	kept := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("%d-byte store of %d quads of %d codes: %d bytes kept after reading them all (%.1f per file byte, cache %d)", len(f.b), h.Quads(), tr.Len(), kept, float64(kept)/float64(len(f.b)), s.CacheBytes)
	if kept > 40*int64(len(f.b))+s.CacheBytes+4<<20 {
		t.Errorf("kept %d bytes for a %d-byte store", kept, len(f.b))
	}
	runtime.KeepAlive(s)
}
