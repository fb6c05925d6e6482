package compress

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/quadtree"
)

// craftSection is one section of a store or partial file, for crafting
// hostile input: raw is written as given (a lie when it differs from what
// payload decompresses to), stored is len(payload).
type craftSection struct {
	tag     string
	codec   uint32
	raw     uint64
	payload []byte
}

// parseFile splits a store or partial file into its sections; a version 5
// file's SUMS section is left out (assemble writes it anew).
func parseFile(t testing.TB, b []byte) (magic string, version uint32, secs []craftSection) {
	t.Helper()
	magic, version = string(b[:8]), binary.LittleEndian.Uint32(b[8:])
	hs, off := sectionHeaderSize, fileHeaderSize
	aligned := magic == Magic && version == VersionAligned
	if version == 1 {
		hs = sectionHeaderSizeV1
	}
	if aligned {
		off = sectionHeaderSize
	}
	for off < len(b) {
		h := b[off : off+hs]
		stored := int(binary.LittleEndian.Uint64(h[8:]))
		p := bytes.Clone(b[off+hs : off+hs+stored])
		if binary.LittleEndian.Uint32(h[4:]) == codecZstd {
			dec, _ := zstd.NewReader(nil)
			var err error
			if p, err = dec.DecodeAll(p, nil); err != nil {
				t.Fatal(err)
			}
			dec.Close()
		}
		if tag := string(h[:4]); tag != tagSums || !aligned {
			secs = append(secs, craftSection{tag: tag, codec: codecRaw, raw: uint64(len(p)), payload: p})
		}
		off += hs + stored
		if aligned {
			off = (off + 31) &^ 31
		}
	}
	return magic, version, secs
}

// assemble writes sections back with valid checksums (the section header's
// own from version 2 on); a version 5 file gets its 32-byte file header,
// its padding, and a SUMS section before END (unless secs has one).
func assemble(magic string, version uint32, secs []craftSection) []byte {
	aligned := magic == Magic && version == VersionAligned
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, version)
	hasSums := false
	for _, s := range secs {
		hasSums = hasSums || s.tag == tagSums
	}
	if aligned {
		b = append(b, make([]byte, 20)...)
	}
	for _, s := range secs {
		if aligned && s.tag == tagEnd && !hasSums {
			b = append(b, sumsSection(b)...)
		}
		h := sectionHeader(s.tag, s.codec, uint64(len(s.payload)), s.raw, crc32.Checksum(s.payload, castagnoli))
		if version == 1 {
			h = h[:sectionHeaderSizeV1]
		}
		b = append(append(b, h...), s.payload...)
		if aligned && s.tag != tagEnd {
			b = append(b, make([]byte, (32-len(b)%32)%32)...)
		}
	}
	return b
}

// sumsSection returns the SUMS section (header, payload, padding) of the
// version 5 file bytes b that precede it.
func sumsSection(b []byte) []byte {
	p := make([]byte, 16)
	binary.LittleEndian.PutUint32(p, sumShift)
	binary.LittleEndian.PutUint64(p[8:], uint64(len(b)))
	for c := 0; c < len(b); c += sumChunk {
		p = binary.LittleEndian.AppendUint32(p, crc32.Checksum(b[c:min(c+sumChunk, len(b))], castagnoli))
	}
	out := append(sectionHeader(tagSums, codecRaw, uint64(len(p)), uint64(len(p)), crc32.Checksum(p, castagnoli)), p...)
	return append(out, make([]byte, (32-len(out)%32)%32)...)
}

// find returns the index of the section tagged tag.
func find(secs []craftSection, tag string) int {
	for i, s := range secs {
		if s.tag == tag {
			return i
		}
	}
	panic("no section " + tag)
}

// editHeader rewrites the HEAD section of c with edit applied.
func editHeader(c []craftSection, edit func(h *Header)) {
	i := find(c, tagHead)
	var h Header
	json.Unmarshal(c[i].payload, &h)
	edit(&h)
	c[i].payload, _ = json.Marshal(h)
	c[i].codec, c[i].raw = codecRaw, uint64(len(c[i].payload))
}

// hostileStores are crafted stores, each with the error it must give. They
// are built from a valid version-3 store (and the version-1 fuzz seed), for
// the reader of stores read into memory.
func hostileStores(t testing.TB) []struct {
	name, want string
	b          []byte
} {
	good, _ := testStoreVersion(t, 13, 9, true, VersionShared)
	v1, err := os.ReadFile("testdata/small.pvs")
	if err != nil {
		t.Fatal(err)
	}
	magic, version, secs := parseFile(t, good)
	craft := func(edit func(secs []craftSection) []craftSection) []byte {
		c := make([]craftSection, len(secs))
		for i, s := range secs {
			c[i] = s
			c[i].payload = bytes.Clone(s.payload)
		}
		return assemble(magic, version, edit(c))
	}
	flip := func(b []byte, at int, bit uint) []byte {
		b = bytes.Clone(b)
		b[at] ^= 1 << bit
		return b
	}
	header := func(edit func(h *Header)) []byte {
		return craft(func(c []craftSection) []craftSection { editHeader(c, edit); return c })
	}
	return []struct {
		name, want string
		b          []byte
	}{
		// HEAD's raw length + 32 GiB: once a 32 GiB allocation.
		{"bit 3 of byte 32 (v2)", "section header checksum mismatch", flip(good, 32, 3)},
		{"bit 3 of byte 32 (v1)", "more than zstd can expand", flip(v1, 32, 3)},
		{"STAT raw length 60 GiB", "more than zstd can expand", craft(func(c []craftSection) []craftSection {
			c[find(c, tagStat)].codec, c[find(c, tagStat)].raw = codecZstd, 60<<30
			return c
		})},
		{"STAT raw length 2 MiB", "STAT section of 2097152 bytes: more than", craft(func(c []craftSection) []craftSection {
			i := find(c, tagStat)
			c[i].codec, c[i].raw, c[i].payload = codecZstd, 2<<20, bytes.Repeat([]byte{1}, 100)
			return c
		})},
		{"unknown section of 60 GiB raw", "more than zstd can expand", craft(func(c []craftSection) []craftSection {
			return append(c[:1], append([]craftSection{{tag: "JUNK", codec: codecZstd, raw: 60 << 30, payload: []byte{1, 2, 3}}}, c[1:]...)...)
		})},
		// A quad's code count of 2^32-31 once overflowed the rank arithmetic.
		{"QIDX code count 2^32-31", "quad 0: 4294967265 codes", craft(func(c []craftSection) []craftSection {
			q := c[find(c, tagQidx)]
			binary.LittleEndian.PutUint32(q.payload[8:], 1<<32-31)
			return c
		})},
		// 32768² cells in a small file: once 8.5 GB before failing. With a
		// known size the header is refused; without, the ELEV section.
		{"32768² grid, zstd-bombed ELEV", "a 32768×32768 grid has|more than zstd can expand", craft(func(c []craftSection) []craftSection {
			editHeader(c, func(h *Header) { h.Width, h.Height = 32768, 32768 })
			e := find(c, tagElev)
			c[e].codec, c[e].raw, c[e].payload = codecZstd, 4<<30, bytes.Repeat([]byte{0x28}, 4096)
			return c
		})},
		{"STAT tag flipped (v2)", "section header checksum mismatch", flip(good, statAt(good), 1)},
		{"STAT renamed (v1)", "missing STAT section", func() []byte {
			m, v, s := parseFile(t, v1)
			s[find(s, tagStat)].tag = "STAX"
			return assemble(m, v, s)
		}()},
		{"junk after END", "bytes after the END section", append(bytes.Clone(good), "junk"...)},
		{"width -64", "terrain of -64×9 cells", header(func(h *Header) { h.Width = -64 })},
		{"zero cell spacing", "cell spacing 0 × 3 m", header(func(h *Header) { h.DxM = 0 })},
		{"bad sectors", "2 sectors", header(func(h *Header) { h.Params.Sectors = 2 })},
		{"allocation ceiling apart from the cap", "CeilingCodes:50 CeilingNodes:0 Threshold:0 Relaxed:0 LevelWeight:1} with a cap of 9999 codes", header(func(h *Header) {
			h.Allocation = &Allocation{Policy: "global", CeilingCodes: 50, LevelWeight: 1}
		})},
		{"allocation threshold −1", "want policy global", header(func(h *Header) {
			h.Allocation = &Allocation{Policy: "global", CeilingCodes: h.Cap.Codes, Threshold: -1, LevelWeight: 1}
		})},
		{"allocation of another policy", "want policy global", header(func(h *Header) {
			h.Allocation = &Allocation{Policy: "greedy", CeilingCodes: h.Cap.Codes, LevelWeight: 1}
		})},
		{"tree over the allocation's ceiling", "codes, over the allocation's ceiling of 1", header(func(h *Header) {
			h.Cap.Codes, h.Allocation = 1, &Allocation{Policy: "global", CeilingCodes: 1, LevelWeight: 1}
		})},
		{"tree over the thesis allocation's ceiling", "nodes, over the allocation's ceiling of 1", header(func(h *Header) {
			h.Cap, h.Allocation = Cap{Nodes: 1}, &Allocation{Policy: "global", Accounting: "thesis", CeilingNodes: 1, LevelWeight: 1}
		})},
		{"thesis allocation with a code cap", "want policy global, the cap as ceiling", header(func(h *Header) {
			h.Allocation = &Allocation{Policy: "global", Accounting: "thesis", CeilingNodes: h.Cap.Codes, LevelWeight: 1}
		})},
		{"ELEV of the wrong size", "ELEV section of 4 bytes for a 13×9 grid, which needs 468", craft(func(c []craftSection) []craftSection {
			e := find(c, tagElev)
			c[e].codec, c[e].raw, c[e].payload = codecRaw, 4, []byte{0, 0, 0, 0}
			return c
		})},
		{"ELEV before HEAD", "before the header", craft(func(c []craftSection) []craftSection {
			c[0], c[1] = c[1], c[0]
			return c
		})},
		{"CODE shorter than one word per quad", "every quad's tree takes at least one", craft(func(c []craftSection) []craftSection {
			i := find(c, tagCode)
			c[i].payload = c[i].payload[:8]
			c[i].raw = 8
			return c
		})},
	}
}

// statAt returns the offset of a version-2 file's STAT section header.
func statAt(b []byte) int {
	for off := fileHeaderSize; off < len(b); off += sectionHeaderSize + int(binary.LittleEndian.Uint64(b[off+8:])) {
		if string(b[off:off+4]) == tagStat {
			return off
		}
	}
	panic("no STAT section")
}

// TestHostileStores: every crafted store of testdata gives its one-line
// error, through Decode and DecodeSize, and neither allocates more than a
// few megabytes on the way.
func TestHostileStores(t *testing.T) {
	for _, tc := range hostileStores(t) {
		t.Run(tc.name, func(t *testing.T) {
			for _, sized := range []bool{false, true} {
				var ms0, ms1 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				var err error
				if sized {
					_, err = DecodeSize(bytes.NewReader(tc.b), int64(len(tc.b)))
				} else {
					_, err = Decode(bytes.NewReader(tc.b))
				}
				runtime.ReadMemStats(&ms1)
				var fe *FormatError
				if !errors.As(err, &fe) || !containsAny(err.Error(), tc.want) {
					t.Errorf("sized %v: got %v, want a *FormatError with %q", sized, err, tc.want)
				}
				if err != nil && strings.Contains(err.Error(), "\n") {
					t.Errorf("error of more than one line: %q", err)
				}
				if a := ms1.TotalAlloc - ms0.TotalAlloc; a > 16<<20 {
					t.Errorf("sized %v: %d bytes allocated", sized, a)
				}
			}
		})
	}
}

// containsAny reports whether s contains one of the |-separated wants.
func containsAny(s, wants string) bool {
	for w := range strings.SplitSeq(wants, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// TestVersion2Stores: stores written before shared subtrees (version 2)
// are still read.
func TestVersion2Stores(t *testing.T) {
	for _, name := range []string{"testdata/tiny-v2.pvs", "testdata/small-v2.pvs"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, v, _ := parseFile(t, b); v != 2 {
			t.Fatalf("%s: version %d, the seed should stay a version-2 store", name, v)
		}
		s, err := Decode(bytes.NewReader(b))
		if err != nil || s.Shared != 0 || s.Hierarchy.Quads() != s.Quads {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestVersion1Stores: stores written before section headers had their own
// checksum are still read, and a rewrite of the same sections in the
// current version decodes to the same store.
func TestVersion1Stores(t *testing.T) {
	for _, name := range []string{"testdata/tiny.pvs", "testdata/small.pvs"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m, v, secs := parseFile(t, b)
		if v != 1 {
			t.Fatalf("%s: version %d, the seed should stay a version-1 store", name, v)
		}
		s1, err := DecodeSize(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b2 := assemble(m, VersionShared, secs)
		s2, err := Decode(bytes.NewReader(b2))
		if err != nil {
			t.Fatalf("%s rewritten as version %d: %v", name, VersionShared, err)
		}
		if s1.Width != s2.Width || s1.NodesTotal != s2.NodesTotal || !slicesEqual(quadtree.FlatOf(s1.Hierarchy).Codes, quadtree.FlatOf(s2.Hierarchy).Codes) {
			t.Errorf("%s: versions 1 and 2 decode differently", name)
		}
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecodeStream: Decode without a size reads the same store from a
// reader that returns a few bytes at a time.
func TestDecodeStream(t *testing.T) {
	good, _ := testStore(t, 13, 9, true)
	s, err := Decode(io.LimitReader(&slowReader{bytes.NewReader(good)}, int64(len(good))))
	if err != nil || s.Width != 13 {
		t.Fatalf("%v", err)
	}
}

// slowReader returns at most 3 bytes per Read.
type slowReader struct{ r io.Reader }

func (s *slowReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 3)]) }

// TestHostileSharedStores: a shared store whose references are wrong but
// whose checksums hold is refused with a *FormatError, never a panic.
func TestHostileSharedStores(t *testing.T) {
	good, _ := sharedStore(t, 21, 14)
	m, v, secs := parseFile(t, good)
	refs := -1
	for i, s := range secs {
		if s.tag == tagRefs {
			refs = i
		}
	}
	if refs < 0 {
		t.Fatal("no REFS section")
	}
	s, err := Decode(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	trees := s.Hierarchy.Quads() + s.Shared
	first := 4 * (trees + 1) // offset of the first reference
	for name, corrupt := range map[string]func(p []byte){
		"subtree out of range": func(p []byte) {
			r := binary.LittleEndian.Uint32(p[first:])
			binary.LittleEndian.PutUint32(p[first:], r|(1<<s.RefBits-1))
		},
		"reference past its tree": func(p []byte) {
			r := binary.LittleEndian.Uint32(p[first:])
			binary.LittleEndian.PutUint32(p[first:], r|^uint32(1<<s.RefBits-1))
		},
		"starts past the references": func(p []byte) { binary.LittleEndian.PutUint32(p[4:], 1<<30) },
		"truncated":                  func(p []byte) {},
	} {
		t.Run(name, func(t *testing.T) {
			c := slices.Clone(secs)
			p := bytes.Clone(c[refs].payload)
			corrupt(p)
			if name == "truncated" {
				p = p[:first-4]
			}
			c[refs].payload, c[refs].raw = p, uint64(len(p))
			_, err := Decode(bytes.NewReader(assemble(m, v, c)))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FormatError", err)
			}
			t.Log(err)
		})
	}
}

// TestAmplifyingReferences: a shared store whose trees expand, through
// their references, past the cap they were shared under — or, without a
// cap, to far more nodes than the codes stored — is refused at load (a
// chain of subtrees each referring to the previous expanded every
// quad to the full 4^K tree and held queries for minutes).
func TestAmplifyingReferences(t *testing.T) {
	good, h := sharedStore(t, 21, 14)
	most := uint32(0)
	for _, n := range quadtree.FlatOf(h).NodeCount {
		most = max(most, n)
	}
	m, v, secs := parseFile(t, good)
	capped := slices.Clone(secs)
	editHeader(capped, func(hd *Header) { hd.Cap = Cap{Codes: int(most) - 1} })
	_, err := Decode(bytes.NewReader(assemble(m, v, capped)))
	if err == nil || !strings.Contains(err.Error(), "nodes through its references, more than the cap's") {
		t.Errorf("a tree past its cap: %v", err)
	}
	// Without a cap: node counts claiming 2^31 nodes per tree.
	inflated := slices.Clone(secs)
	i := find(inflated, tagQidx)
	p := bytes.Clone(inflated[i].payload)
	for q := 0; q+qidxEntrySize <= len(p); q += qidxEntrySize {
		binary.LittleEndian.PutUint32(p[q+12:], 1<<31)
	}
	inflated[i].payload, inflated[i].raw = p, uint64(len(p))
	_, err = Decode(bytes.NewReader(assemble(m, v, inflated)))
	if err == nil || !strings.Contains(err.Error(), "references expand") {
		t.Errorf("inflated node counts: %v", err)
	}
}

// TestHostileMetadata: headers with nonsense numbers and NaN elevations are
// refused at load with the section's offset.
func TestHostileMetadata(t *testing.T) {
	for _, v := range []uint32{VersionAligned, VersionShared} {
		testHostileMetadata(t, v)
	}
}

func testHostileMetadata(t *testing.T, version uint32) {
	good, _ := testStoreVersion(t, 13, 9, true, version)
	m, v, secs := parseFile(t, good)
	for name, edit := range map[string]func(h *Header){
		"window −1":          func(h *Header) { h.Window = [4]int{-1, 0, h.Width, h.Height} },
		"geotransform 1e308": func(h *Header) { h.GeoTransform[0], h.HasGeoTransform = 1e308, true },
		"flat geotransform":  func(h *Header) { h.GeoTransform, h.HasGeoTransform = [6]float64{0, 1, 0, 0, 0, 0}, true },
		"cap −1":             func(h *Header) { h.Cap.Codes = -1 },
		"dy 1e308":           func(h *Header) { h.DyM = 1e308 },
		"lon/lat, no CRS":    func(h *Header) { withLattice(h, lattice(h.Width, h.Height)); h.CRS = "" },
		"lon/lat nodes":      func(h *Header) { withLattice(h, lattice(h.Width+1, h.Height)) },
		"lon/lat 1e300":      func(h *Header) { withLattice(h, lattice(h.Width, h.Height)); h.LonLat.Degrees[4] = 1e300 },
		"lon/lat 3×3": func(h *Header) {
			withLattice(h, lattice(h.Width, h.Height))
			h.LonLat.Cols, h.LonLat.Rows, h.LonLat.Degrees = 3, 3, h.LonLat.Degrees[:18]
		},
	} {
		c := slices.Clone(secs)
		editHeader(c, edit)
		_, err := Decode(bytes.NewReader(assemble(m, v, c)))
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "header: ") ||
			strings.HasPrefix(name, "lon/lat") && !strings.Contains(err.Error(), "lon/lat grid") {
			t.Errorf("%s: got %v", name, err)
		}
	}
	// A well-formed lattice is read back as written.
	c := slices.Clone(secs)
	ll := lattice(13, 9)
	editHeader(c, func(h *Header) { withLattice(h, ll) })
	if s, err := Decode(bytes.NewReader(assemble(m, v, c))); err != nil || !reflect.DeepEqual(s.LonLat, ll) {
		t.Errorf("a lon/lat lattice: %v, read back %+v", err, s)
	}
	c = slices.Clone(secs)
	i := find(c, tagElev)
	p := bytes.Clone(c[i].payload)
	binary.LittleEndian.PutUint32(p[4*5:], math.Float32bits(float32(math.NaN())))
	c[i].payload = p
	if _, err := Decode(bytes.NewReader(assemble(m, v, c))); err == nil || !strings.Contains(err.Error(), "cell (5,0) is NaN") {
		t.Errorf("NaN elevation: %v", err)
	}
}

// lattice returns a lon/lat lattice of 4×4 nodes for a width×height grid
// near 44°N 71°W.
func lattice(width, height int) *heightmap.LonLatGrid {
	l := &heightmap.LonLatGrid{Cols: 4, Rows: 4, StepU: float64(width), StepV: float64(height)}
	for j := range 4 {
		for i := range 4 {
			l.Degrees = append(l.Degrees, -71+0.001*float64(i), 44-0.001*float64(j))
		}
	}
	return l
}

// withLattice gives h a geotransform, a CRS and the lattice ll.
func withLattice(h *Header, ll *heightmap.LonLatGrid) {
	h.GeoTransform, h.HasGeoTransform, h.CRS, h.LonLat = [6]float64{0, 1, 0, 0, 0, -1}, true, "WKT", ll
}

// TestVisibilityModels: a store names its visibility model and version
// (VisParams.LOS, LOSVersion); every reader refuses a model or a version
// this build does not know, in one line naming both, and still reads the
// stores from before models were named (the model from "conservative",
// version 0).
func TestVisibilityModels(t *testing.T) {
	good, _ := testStoreVersion(t, 13, 9, true, VersionAligned)
	m, v, secs := parseFile(t, good)
	for _, tc := range []struct {
		name string
		edit func(h *Header)
		want string // "" when the store is read
		los  horizon.LOS
		ver  int
	}{
		{"this build's sector", func(h *Header) {}, "", horizon.LOSSector, 1},
		{"this build's conservative", func(h *Header) {
			p := horizon.DefaultParams()
			p.LOS = horizon.LOSConservative
			h.Params = FromHorizon(p)
		}, "", horizon.LOSConservative, 1},
		{"this build's region", func(h *Header) { p := horizon.DefaultParams(); p.LOS = horizon.LOSRegion; h.Params = FromHorizon(p) }, "", horizon.LOSRegion, 5},
		{"the region model's version 4", func(h *Header) {
			p := horizon.DefaultParams()
			p.Version = 4
			h.Params = FromHorizon(p)
		}, "", horizon.LOSRegion, 4},
		{"the region model's version 3", func(h *Header) {
			p := horizon.DefaultParams()
			p.Version = 3
			h.Params = FromHorizon(p)
		}, "", horizon.LOSRegion, 3},
		{"the previous region version", func(h *Header) {
			p := horizon.DefaultParams()
			p.Version = 2
			h.Params = FromHorizon(p)
		}, "", horizon.LOSRegion, 2},
		{"an older region version", func(h *Header) {
			p := horizon.DefaultParams()
			p.LOS = horizon.LOSRegion
			h.Params = FromHorizon(p)
			h.Params.LOSVersion = 1
		}, "", horizon.LOSRegion, 1},
		{"region with the conservative flag", func(h *Header) { h.Params.LOS, h.Params.Conservative = "region", true }, `visibility model "region" version 1 is not one`, 0, 0},
		{"unnamed sector", func(h *Header) { h.Params.LOS, h.Params.LOSVersion = "", 0 }, "", horizon.LOSSector, 0},
		{"unnamed conservative", func(h *Header) { h.Params.LOS, h.Params.LOSVersion, h.Params.Conservative = "", 0, true }, "", horizon.LOSConservative, 0},
		{"unknown model", func(h *Header) { h.Params.LOS = "exact" }, `visibility model "exact" version 1 is not one this build knows (sector version 1, conservative version 1, region version 5)`, 0, 0},
		{"newer version", func(h *Header) { h.Params.LOS, h.Params.LOSVersion, h.Params.Conservative = "conservative", 2, true },
			`visibility model "conservative" version 2 is not one this build knows`, 0, 0},
		{"name and flag disagree", func(h *Header) { h.Params.Conservative = true }, `visibility model "sector" version 1 is not one`, 0, 0},
		{"version without a name", func(h *Header) { h.Params.LOS = "" }, "visibility model version 1 without a name", 0, 0},
	} {
		c := slices.Clone(secs)
		editHeader(c, tc.edit)
		b := assemble(m, v, c)
		path := filepath.Join(t.TempDir(), "s.pvs")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for reader, open := range map[string]func() (*Store, error){
			"Decode": func() (*Store, error) { return Decode(bytes.NewReader(b)) },
			"Open":   func() (*Store, error) { return Open(path) },
		} {
			s, err := open()
			if tc.want == "" {
				if err != nil {
					t.Errorf("%s, %s: %v", tc.name, reader, err)
					continue
				}
				if l, ver, err := s.Params.Model(); err != nil || l != tc.los || ver != tc.ver {
					t.Errorf("%s, %s: model %v version %d (%v), want %v version %d", tc.name, reader, l, ver, err, tc.los, tc.ver)
				}
				s.Close()
				continue
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s, %s: got %v, want a one-line *FormatError with %q", tc.name, reader, err, tc.want)
			}
		}
	}
}

// TestSparseStores: a store file that is mostly holes (a grid declared and
// never written) is refused at open with ErrSparse, before anything is
// mapped or read; the same bytes written out are judged as a store.
func TestSparseStores(t *testing.T) {
	good, err := os.ReadFile("testdata/small.pvs")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse.pvs")
	if err := os.WriteFile(sparse, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 200<<20); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(sparse)
	data, ok := dataBytes(f, 200<<20)
	f.Close()
	if !ok {
		t.Skip("this file system does not report holes")
	}
	if _, err := Open(sparse); !errors.Is(err, ErrSparse) || !strings.Contains(err.Error(), "of data for 209.72 MB declared") {
		t.Errorf("a 200 MiB file of %d bytes of data: %v", data, err)
	}
	whole := filepath.Join(dir, "whole.pvs")
	if err := os.WriteFile(whole, append(good, make([]byte, 70<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(whole); err == nil || errors.Is(err, ErrSparse) {
		t.Errorf("a store followed by written zeros: %v, want the store's own error", err)
	}
}

// TestHorizonVersion: a store's parameters give back the model version
// it was baked with where this build bakes another than the default (so
// that verify, resumes and shards rerun it), and the default (0) for the
// default version, for stores from before versions and for versions it no
// longer bakes.
func TestHorizonVersion(t *testing.T) {
	p := horizon.DefaultParams()
	if got := FromHorizon(p); got.LOSVersion != horizon.LOSRegion.Default() || got.Horizon() != p {
		t.Errorf("default: %+v gives %+v", got, got.Horizon())
	}
	for _, v := range []int{2, 3, 4} {
		p.Version = v
		if got := FromHorizon(p); got.LOSVersion != v || got.Horizon() != p {
			t.Errorf("region v%d: %+v gives %+v", v, got, got.Horizon())
		}
	}
	for _, v := range []int{0, 1} {
		vp := FromHorizon(horizon.DefaultParams())
		vp.LOSVersion = v
		if got := vp.Horizon(); got.Version != 0 {
			t.Errorf("region version %d: Horizon has Version %d, want 0", v, got.Version)
		}
	}
}
