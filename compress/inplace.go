package compress

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Reading a version 5 store in place: the file's bytes (a mapping, Open, or
// the whole input, Decode) are parsed section by section without copying
// the trees, the index or the elevations; the small sections are read and
// checked at once; the trees, their index and the blocks are checked when
// first read, each against the SUMS section's chunk checksums and by
// quadpvs (NewStored, NewCoded).

// littleEndian reports whether this machine stores integers as the file
// does, so that its sections can be used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// u64s returns b (a multiple of 8 bytes) as uint64s: in place when the
// machine is little-endian and b 8-byte aligned, else a converted copy.
func u64s(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		// SAFETY: b is 8-byte aligned, len(b)/8 words long, and the file's
		// little-endian words are the machine's; b outlives the view (the
		// Store holds the mapping until Close).
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	}
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// u32s is u64s for uint32s (b a multiple of 4 bytes).
func u32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		// SAFETY: as in u64s, for 4-byte words.
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// ranksOf returns words seen as uint32s (element 2i the low half of word
// i), the view quadtree.NewStored wants: in place on a little-endian
// machine, else a converted copy.
func ranksOf(words []uint64) []uint32 {
	if len(words) == 0 {
		return nil
	}
	if littleEndian {
		// SAFETY: words is 8-byte aligned and 2·len(words) uint32s long; on
		// a little-endian machine element 2i is the low half of word i.
		return unsafe.Slice((*uint32)(unsafe.Pointer(&words[0])), 2*len(words))
	}
	out := make([]uint32, 2*len(words))
	for i, w := range words {
		out[2*i], out[2*i+1] = uint32(w), uint32(w>>32)
	}
	return out
}

// chunkSums verifies byte ranges of a file against its SUMS section: the
// CRC-32C of every chunk of 1<<shift bytes, each chunk checked once.
type chunkSums struct {
	file    []byte
	shift   uint
	covered int64
	sums    []byte // 4 bytes per chunk
	ok      []atomic.Uint64
}

// verify checks the chunks holding file bytes [lo, hi).
func (c *chunkSums) verify(lo, hi int64) error {
	if hi > c.covered {
		return fmt.Errorf("bytes %d to %d lie beyond the %d bytes the checksums cover", lo, hi, c.covered)
	}
	for k := lo >> c.shift; k<<c.shift < hi; k++ {
		w := &c.ok[k>>6]
		if w.Load()&(1<<(k&63)) != 0 {
			continue
		}
		a, b := k<<c.shift, min((k+1)<<c.shift, c.covered)
		if crc32.Checksum(c.file[a:b], castagnoli) != binary.LittleEndian.Uint32(c.sums[4*k:]) {
			return fmt.Errorf("checksum mismatch in bytes %d to %d: the file is corrupt", a, b)
		}
		w.Or(1 << (k & 63))
	}
	return nil
}

// inPlace is where a version 5 store's sections lie in its file.
type inPlace struct {
	file      []byte
	sums      *chunkSums
	payload   map[string]int64 // section tag → payload offset
	quads     int
	treeWords uint64 // flat: TREE's length in words
}

// parseAligned reads the version 5 store held in b (the whole file). The
// trees are not read: see inPlace. Errors are *FormatError.
func parseAligned(b []byte) (*Store, error) {
	size := int64(len(b))
	if size < sectionHeaderSize {
		return nil, &FormatError{size, "truncated file"}
	}
	for _, z := range b[fileHeaderSize:sectionHeaderSize] {
		if z != 0 {
			return nil, &FormatError{fileHeaderSize, "version 5 file header: bytes 12 to 31 must be zero"}
		}
	}
	s := &Store{}
	ip := &inPlace{file: b, payload: map[string]int64{}}
	var cells, quads uint64
	var ctab, cidx, cblk, tree, tidx []byte
	var ctabAt int64
	off := int64(sectionHeaderSize)
	seen := map[string]bool{}
	for {
		at := off
		if size-at < sectionHeaderSize {
			return nil, &FormatError{at, "truncated file: no END section"}
		}
		start := at + sectionHeaderSize
		sh, err := parseSectionHeader(b[at:start], at, size-start)
		if err != nil {
			return nil, err
		}
		tag, codec, stored, raw := sh.tag, sh.codec, sh.stored, sh.raw
		off = start + int64(stored)
		if tag != tagEnd {
			end := (off + 31) &^ 31
			if end > size {
				return nil, &FormatError{at, fmt.Sprintf("section %q's padding runs past the end of the file: truncated", tag)}
			}
			for _, z := range b[off:end] {
				if z != 0 {
					return nil, &FormatError{off, fmt.Sprintf("section %q's padding is not zeros", tag)}
				}
			}
			off = end
		}
		if err := seenSection(seen, tag, at); err != nil {
			return nil, err
		}
		ip.payload[tag] = start
		p := b[start:off][:stored]
		// read returns the checked, decompressed payload of a section read
		// whole at open, of exactly want bytes (0: any up to maxJSON).
		read := func(want uint64) ([]byte, error) {
			if want == 0 && raw > maxJSON {
				return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes: more than the %d a header or statistics take", tag, raw, maxJSON)}
			}
			if want != 0 && raw != want {
				return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes for a %d×%d grid, which needs %d", tag, raw, s.Width, s.Height, want)}
			}
			return payload(at, sh, p)
		}
		// inplace returns a raw section used in place, of want bytes (0:
		// any multiple of unit).
		inplace := func(want, unit uint64) ([]byte, error) {
			if codec != codecRaw || want != 0 && raw != want || raw%unit != 0 {
				return nil, &FormatError{at, fmt.Sprintf("%s section: %d bytes, codec %d; want raw %s", tag, raw, codec,
					map[bool]string{true: fmt.Sprintf("%d bytes", want), false: fmt.Sprintf("whole %d-byte words", unit)}[want != 0])}
			}
			return p, nil
		}
		switch tag {
		case tagHead:
			var head []byte
			if head, err = read(0); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(head, &s.Header); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if cells, quads, err = s.Header.check(size); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if s.Shared != 0 || s.CacheTrees != 0 {
				return nil, &FormatError{at, "header: shared subtrees or a cache counted in trees in a version 5 store"}
			}
			ip.quads = int(quads)
		case tagElev:
			var eb []byte
			if eb, err = read(4 * cells); err != nil {
				return nil, err
			}
			if codec == codecRaw && littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(eb)))%4 == 0 {
				// SAFETY: eb is 4-byte aligned and 4·cells bytes long; the
				// file's little-endian float32s are the machine's; the Store
				// holds the bytes until Close.
				s.Elev = unsafe.Slice((*float32)(unsafe.Pointer(&eb[0])), len(eb)/4)
			} else {
				s.Elev = decodeElev(eb)
			}
			if err := checkElev(s.Elev, s.Width); err != nil {
				return nil, &FormatError{at, err.Error()}
			}
		case tagNdat:
			var nb []byte
			if nb, err = read((cells + 7) / 8); err != nil {
				return nil, err
			}
			s.Nodata = decodeNodata(nb)[:cells]
		case tagCtab:
			if ctab, err = read(quadtree.CondTableBytes); err != nil {
				return nil, err
			}
			ctabAt = at
		case tagTree:
			if tree, err = inplace(0, 8); err != nil {
				return nil, err
			}
		case tagTidx:
			if tidx, err = inplace(16*quads, 1); err != nil {
				return nil, err
			}
		case tagCidx:
			if cidx, err = inplace(8*quads, 1); err != nil {
				return nil, err
			}
		case tagCblk:
			if cblk, err = inplace(0, 1); err != nil {
				return nil, err
			}
		case tagStat:
			var sj []byte
			if sj, err = read(0); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(sj, &s.Stats); err != nil {
				return nil, &FormatError{at, "statistics: " + err.Error()}
			}
		case tagSums:
			var sb []byte
			if sb, err = read(0); err != nil {
				return nil, err
			}
			if ip.sums, err = readSums(b, sb, at); err != nil {
				return nil, err
			}
		case tagEnd:
			if raw != 0 {
				return nil, &FormatError{at, "END section with a payload"}
			}
			if off != size {
				return nil, &FormatError{off, fmt.Sprintf("%d bytes after the END section", size-off)}
			}
			return s, ip.finish(s, tree, tidx, ctab, ctabAt, cidx, cblk)
		}
	}
}

// readSums reads a SUMS payload p whose section header is at at: a chunk
// size's shift (16), 4 zero bytes, the bytes covered (the section's
// offset), then a CRC-32C per chunk.
func readSums(file, p []byte, at int64) (*chunkSums, error) {
	if len(p) < 16 {
		return nil, &FormatError{at, "SUMS section cut short"}
	}
	shift := binary.LittleEndian.Uint32(p)
	covered := binary.LittleEndian.Uint64(p[8:])
	if shift != sumShift || binary.LittleEndian.Uint32(p[4:]) != 0 || covered != uint64(at) {
		return nil, &FormatError{at, fmt.Sprintf("SUMS section: chunks of 2^%d bytes over %d bytes, want 2^%d over the %d before it", shift, covered, sumShift, at)}
	}
	chunks := (covered + sumChunk - 1) / sumChunk
	if uint64(len(p)) != 16+4*chunks {
		return nil, &FormatError{at, fmt.Sprintf("SUMS section of %d bytes for %d chunks", len(p), chunks)}
	}
	return &chunkSums{file: file, shift: sumShift, covered: int64(covered), sums: p[16:], ok: make([]atomic.Uint64, (chunks+63)/64)}, nil
}

// checkElev refuses elevations that are not finite numbers.
func checkElev(elev []float32, width int) error {
	for i, e := range elev {
		if math.IsNaN(float64(e)) || math.IsInf(float64(e), 0) {
			return fmt.Errorf("ELEV section: cell (%d,%d) is %g, want a finite elevation (nodata cells hold their filled value)", i%width, i/width, e)
		}
	}
	return nil
}

// finish checks that a version 5 store has the sections of its encoding
// and builds its hierarchy, read in place.
func (ip *inPlace) finish(s *Store, tree, tidx, ctab []byte, ctabAt int64, cidx, cblk []byte) error {
	end := int64(len(ip.file))
	coded := s.Encoding == EncodingCoded
	need, forbid := []string{tagElev, tagTree, tagTidx, tagStat, tagSums}, []string{tagCtab, tagCidx, tagCblk, tagCode, tagQidx, tagRefs}
	if coded {
		need, forbid = []string{tagElev, tagCtab, tagCidx, tagCblk, tagStat, tagSums}, []string{tagTree, tagTidx, tagCode, tagQidx, tagRefs}
	}
	for _, tag := range need {
		if _, ok := ip.payload[tag]; !ok {
			return &FormatError{end, fmt.Sprintf("missing %s section", tag)}
		}
	}
	for _, tag := range forbid {
		if _, ok := ip.payload[tag]; ok {
			return &FormatError{end, fmt.Sprintf("%s section in a %s store", tag, map[bool]string{true: "coded", false: "flat"}[coded])}
		}
	}
	g, err := quadpvs.NewGeometry(s.Width, s.Height)
	if err != nil {
		return &FormatError{end, err.Error()}
	}
	verify := func(region int, lo, hi uint64) error {
		if region == quadpvs.RegionIndex && !coded {
			// Tree lo's start, code count and node count.
			a, q := ip.payload[tagTidx], int64(ip.quads)
			for _, r := range [3][2]int64{{a + 8*int64(lo), 8}, {a + 8*q + 4*int64(lo), 4}, {a + 12*q + 4*int64(lo), 4}} {
				if err := ip.sums.verify(r[0], r[0]+r[1]); err != nil {
					return err
				}
			}
			return nil
		}
		return ip.sums.verify(ip.span(coded, region, lo, hi))
	}
	if coded {
		if s.CacheBytes == 0 {
			return &FormatError{ip.payload[tagHead], "header: a version 5 coded store without cache_bytes"}
		}
		coder, err := readTable(ctab, ctabAt)
		if err != nil {
			return err
		}
		c := quadtree.Coded{Coder: coder, Blocks: cblk, Index: u64s(cidx), CacheBytes: s.CacheBytes, Ceiling: s.Cap.Codes,
			PinnedBytes: s.PinnedBytes, Verify: verify}
		h, err := quadtree.NewCoded(g, c)
		if err != nil {
			var fe *quadpvs.FormatError
			if errors.As(err, &fe) {
				return &FormatError{ip.payload[tagCblk] + int64(fe.Offset), "CBLK section: " + fe.Msg}
			}
			return &FormatError{ip.payload[tagCblk], "CBLK section: " + err.Error()}
		}
		s.Hierarchy = h
	} else {
		words := u64s(tree)
		ip.treeWords = uint64(len(words))
		q := uint64(ip.quads)
		st := quadtree.Stored{Words: words, Start: u64s(tidx[:8*q]), Len: u32s(tidx[8*q : 12*q]), NodeCount: u32s(tidx[12*q:]),
			CeilingCodes: s.Cap.Codes, CeilingNodes: s.Cap.Nodes, Verify: verify}
		if a := s.Allocation; a != nil {
			st.CeilingCodes, st.CeilingNodes = a.CeilingCodes, a.CeilingNodes
		}
		h, err := quadtree.NewStored(g, st, ranksOf(words))
		if err != nil {
			return &FormatError{ip.payload[tagTidx], "TIDX section: " + err.Error()}
		}
		s.Hierarchy = h
	}
	s.inPlace = ip
	return nil
}

// span returns the file bytes behind region's [lo, hi) (quadpvs's regions:
// an index entry lo = q, code words, block bytes).
func (ip *inPlace) span(coded bool, region int, lo, hi uint64) (int64, int64) {
	switch {
	case region == quadpvs.RegionIndex && coded:
		a := ip.payload[tagCidx] + int64(8*lo)
		return a, a + 8
	case region == quadpvs.RegionIndex:
		// The start of tree lo (its counts follow the starts).
		a := ip.payload[tagTidx] + int64(8*lo)
		return a, a + 8
	case region == quadpvs.RegionBlocks:
		a := ip.payload[tagCblk]
		return a + int64(lo), a + int64(hi)
	}
	a := ip.payload[tagTree]
	return a + int64(8*lo), a + int64(8*hi)
}

// treeError turns a hierarchy's failed tree into a *FormatError with the
// file offset of what failed.
func (ip *inPlace) treeError(coded bool, e *quadpvs.TreeError) *FormatError {
	var at int64
	switch {
	case e.Region == quadpvs.RegionIndex:
		at, _ = ip.span(coded, quadpvs.RegionIndex, uint64(e.Quad), uint64(e.Quad))
	case coded:
		at = ip.payload[tagCblk] + e.Offset
	default:
		at = ip.payload[tagTree] + e.Offset
	}
	section := map[int]string{quadpvs.RegionIndex: tagTidx, quadpvs.RegionCodes: tagTree, quadpvs.RegionBlocks: tagCblk}[e.Region]
	if coded && e.Region == quadpvs.RegionIndex {
		section = tagCidx
	}
	return &FormatError{at, fmt.Sprintf("%s section: quad %d: %s", section, e.Quad, e.Msg)}
}
