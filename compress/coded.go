package compress

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"
	"weak"

	"github.com/frontiersets/frontiersets/internal/blockindex"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// CodedWriter writes a coded store (format version 5, FORMAT.md) as its
// quads' blocks are produced, in any order: the header, the grid, the
// coder's table (CTAB), the blocks streamed (CBLK), and at Close the
// block index (CIDX) and the statistics. It keeps 8 bytes per quad until
// Close (and a bit). Writing to a temporary file and renaming it is the caller's. It
// is not safe for concurrent use.
type CodedWriter struct {
	sectionWriter
	blocks *streamed
	ix     *quadIndex // CIDX entries, by quad index, and the quads added
	head   *Header    // SetHeader's, written back at Close
	headAt int64      // the HEAD section's offset
	headN  int        // its payload's bytes (JSON padded with spaces)
}

// cidxField is CIDX's one field: a block's index entry, 8 bytes per quad.
var cidxField = indexField{base: 0, stride: 8, width: 8}

// headRoom is the room NewCodedWriter leaves in HEAD for SetHeader: the
// header's JSON and this many spaces.
const headRoom = 1024

// NewCodedWriter starts a coded store in f for a hierarchy of quads quads
// whose blocks were coded by the conditional coder of frequency table
// table (CTAB in FORMAT.md: 257 contexts × 256 symbols, 16-bit
// little-endian, 131,584 bytes), writing the header hd (its encoding set;
// hd.CacheBytes must be set, hd without shared subtrees), the grid
// (elevations in metres, row-major Width×Height; nodata nil when none)
// and the table. Errors: a header or grid of another size, a table that
// is not a coder's (its *quadpvs.FormatError).
func NewCodedWriter(f File, hd Header, quads int, table []byte, elev []float32, nodata []bool) (*CodedWriter, error) {
	if hd.Shared != 0 || len(elev) != hd.Width*hd.Height || (nodata != nil && len(nodata) != len(elev)) {
		return nil, fmt.Errorf("compress: a coded store of %d shared subtrees, %d elevations for a %d×%d grid", hd.Shared, len(elev), hd.Width, hd.Height)
	}
	if _, err := quadtree.ReadCondTable(table); err != nil {
		return nil, fmt.Errorf("compress: the coder's table: %w", err)
	}
	if hd.CacheBytes < quadpvs.MinCacheBytes || hd.CacheBytes > quadpvs.MaxCacheBytes {
		return nil, fmt.Errorf("compress: a coded store's cache of %d bytes, want %d to %d", hd.CacheBytes, int64(quadpvs.MinCacheBytes), int64(quadpvs.MaxCacheBytes))
	}
	hd.Encoding, hd.CacheTrees = EncodingCoded, 0
	w := &CodedWriter{sectionWriter: newSectionWriter(f), ix: newQuadIndex(quads, cidxField)}
	w.aligned = true
	if err := w.fileHeader(Magic, VersionAligned); err != nil {
		return nil, err
	}
	head, err := json.Marshal(hd)
	if err != nil {
		return nil, err
	}
	// HEAD raw, with room for SetHeader to write it again.
	w.headAt, w.headN = w.pos, len(head)+headRoom
	if err := w.sectionAs(tagHead, append(head, bytes.Repeat([]byte{' '}, headRoom)...), false); err != nil {
		return nil, err
	}
	if err := w.grid(elev, nodata); err != nil {
		return nil, err
	}
	if err := w.section(tagCtab, table); err != nil {
		return nil, err
	}
	if w.blocks, err = w.stream(tagCblk); err != nil {
		return nil, err
	}
	return w, nil
}

// SetHeader replaces the header written at the start (its encoding and
// cache kept), at Close: for what is known only once the blocks are
// written, such as a bake's allocation. Errors: a header whose JSON
// outgrows the room NewCodedWriter left (1 KiB more than the first).
func (w *CodedWriter) SetHeader(hd Header) error {
	w.head = &hd
	return nil
}

// Add appends quad q's block (quadtree.CondCoder.Append). Every quad must be
// added exactly once before Close.
func (w *CodedWriter) Add(q int, block []byte) error {
	if q < 0 || q >= w.ix.quads || w.ix.has(q) {
		return fmt.Errorf("compress: quad %d added twice or out of range (%d quads)", q, w.ix.quads)
	}
	e, err := blockindex.Entry(w.blocks.n, uint64(len(block)))
	if err != nil {
		return err
	}
	if err := w.ix.put(q, e); err != nil {
		return err
	}
	return w.put(w.blocks, block)
}

// SetIndexSpill keeps w's block index in sp rather than in memory, from
// the entries added so far on (IndexSpill). Errors: sp set already.
func (w *CodedWriter) SetIndexSpill(sp IndexSpill) error {
	return w.ix.setSpill(sp)
}

// CodedWriterState is a CodedWriter's state between two Adds
// (Checkpoint): with the file's first Pos bytes, ResumeCodedWriter
// continues the same store.
type CodedWriterState struct {
	Pos       int64    // bytes written to the file
	Sums      []uint32 // CRC-32C of each whole 64 KiB chunk
	Cur       uint32   // of the chunk under way
	BlocksAt  int64    // the CBLK section header's offset
	BlocksN   uint64   // CBLK's payload bytes so far
	BlocksCRC uint32   // and their CRC-32C
	Index     []byte   // CIDX entries, 8 bytes per quad (zero: not added yet)
	Set       []uint64 // bit q: quad q added
	HeadAt    int64    // the HEAD section's offset
	HeadN     int      // its payload's bytes
}

// Checkpoint flushes w's buffer to its file and returns its state. Its
// slices are w's own, valid until w is used again (Index and Set take 8
// bytes and a bit per quad: a caller may keep them its own way, as the
// order and lengths of the blocks added, and restore them with
// ReplayIndex; Index is nil where the index spills, SetIndexSpill). The
// caller syncs the file before relying on it.
func (w *CodedWriter) Checkpoint() (CodedWriterState, error) {
	if err := w.bw.Flush(); err != nil {
		return CodedWriterState{}, err
	}
	return CodedWriterState{Pos: w.pos, Sums: w.sums, Cur: w.cur, BlocksAt: w.blocks.at, BlocksN: w.blocks.n,
		BlocksCRC: w.blocks.crc, Index: w.ix.bytes(), Set: w.ix.set, HeadAt: w.headAt, HeadN: w.headN}, nil
}

// ReplayIndex sets s.Index and s.Set for a store of quads quads from its
// blocks' quads and lengths in the order they were added (next returns
// them, ok false after the last): Add puts each block right after the one
// before. Errors: a quad out of range or added twice, a block too large
// for an index entry, or lengths that do not add up to s.BlocksN.
func ReplayIndex(s *CodedWriterState, quads int, next func() (q int, n uint64, ok bool)) error {
	s.Index, s.Set = make([]byte, 8*quads), make([]uint64, (quads+63)/64)
	var off uint64
	for q, n, ok := next(); ok; q, n, ok = next() {
		if q < 0 || q >= quads || s.Set[q>>6]&(1<<(q&63)) != 0 {
			return fmt.Errorf("compress: quad %d replayed twice or out of range (%d quads)", q, quads)
		}
		e, err := blockindex.Entry(off, n)
		if err != nil {
			return err
		}
		s.Set[q>>6] |= 1 << (q & 63)
		binary.LittleEndian.PutUint64(s.Index[8*q:], e)
		off += n
	}
	if off != s.BlocksN {
		return fmt.Errorf("compress: blocks of %d bytes replayed where the checkpoint wrote %d", off, s.BlocksN)
	}
	return nil
}

// CheckCodedPrefix checks that r holds the s.Pos bytes a coded writer had
// written when its Checkpoint gave s: each whole 64 KiB chunk against
// s.Sums, the last part against s.Cur (CRC-32C, as the SUMS section). It
// reads the s.Pos bytes once. Errors: a *FormatError at the first chunk
// that differs, or r's read error.
func CheckCodedPrefix(r io.ReaderAt, s CodedWriterState) error {
	if s.Pos < 0 || int64(len(s.Sums)) != s.Pos/sumChunk {
		return &FormatError{0, fmt.Sprintf("a checkpoint of %d bytes with %d chunk sums", s.Pos, len(s.Sums))}
	}
	buf := make([]byte, min(s.Pos, sumChunk))
	for lo := int64(0); lo < s.Pos; lo += sumChunk {
		n := min(sumChunk, s.Pos-lo)
		if _, err := r.ReadAt(buf[:n], lo); err != nil {
			return err
		}
		want := s.Cur
		if n == sumChunk {
			want = s.Sums[lo/sumChunk]
		}
		if crc32.Checksum(buf[:n], castagnoli) != want {
			return &FormatError{lo, fmt.Sprintf("bytes %d to %d differ from what was written", lo, lo+n)}
		}
	}
	return nil
}

// ResumeCodedWriter continues, in f, the coded store of quads quads whose
// writer's Checkpoint gave s: f holds the s.Pos bytes written then, and
// its next write lands at s.Pos (the caller truncates and seeks it).
// Errors: a state that does not fit quads, or that no Checkpoint gives.
func ResumeCodedWriter(f File, s CodedWriterState, quads int) (*CodedWriter, error) {
	if len(s.Index) != 8*quads || len(s.Set) != (quads+63)/64 || s.Pos < 0 || s.HeadAt <= 0 || s.BlocksAt <= s.HeadAt ||
		int64(len(s.Sums)) != s.Pos/sumChunk || s.BlocksAt+sectionHeaderSize+int64(s.BlocksN) != s.Pos {
		return nil, fmt.Errorf("compress: a coded writer's checkpoint of %d bytes for %d quads does not hold together", s.Pos, quads)
	}
	w := &CodedWriter{sectionWriter: newSectionWriter(f), ix: newQuadIndex(quads, cidxField), headAt: s.HeadAt, headN: s.HeadN}
	w.ix.mem, w.ix.set = slices.Clone(s.Index), slices.Clone(s.Set)
	w.aligned, w.pos, w.sums, w.cur = true, s.Pos, slices.Clone(s.Sums), s.Cur
	w.blocks = &streamed{tag: tagCblk, at: s.BlocksAt, n: s.BlocksN, crc: s.BlocksCRC}
	return w, nil
}

// Close finishes the store: the block index, the statistics st, the chunk
// checksums and the end marker. It does not close f.
func (w *CodedWriter) Close(st Stats) error {
	if q := w.ix.missing(); q >= 0 {
		return fmt.Errorf("compress: quad %d of %d was never added", q, w.ix.quads)
	}
	if err := w.close(w.blocks); err != nil {
		return err
	}
	cidx, err := w.indexSection(tagCidx, w.ix)
	if err != nil {
		return err
	}
	if w.head != nil {
		if err := w.writeHead(); err != nil {
			return err
		}
	}
	return w.end(st, w.blocks, cidx)
}

// writeHead writes SetHeader's header over the first, padded with spaces
// to the same length, and its section header.
func (w *CodedWriter) writeHead() error {
	hd := *w.head
	hd.Encoding, hd.CacheTrees = EncodingCoded, 0
	head, err := json.Marshal(hd)
	if err != nil {
		return err
	}
	if len(head) > w.headN {
		return fmt.Errorf("compress: a header of %d bytes where %d were left", len(head), w.headN)
	}
	p := append(head, bytes.Repeat([]byte{' '}, w.headN-len(head))...)
	if err := w.bw.Flush(); err != nil {
		return err
	}
	sh := sectionHeader(tagHead, codecRaw, uint64(len(p)), uint64(len(p)), crc32.Checksum(p, castagnoli))
	if _, err := w.f.WriteAt(append(sh, p...), w.headAt); err != nil {
		return err
	}
	return w.resum(w.headAt, w.headAt+int64(len(sh)+len(p)))
}

// WriteCoded writes the coded hierarchy h (quadpvs.Hierarchy.Code) as a
// coded store (NewCodedWriter) with header hd (its cache set from h),
// the grid and the statistics st (their PinnedBytes set from h).
func WriteCoded(f File, hd Header, h *quadpvs.Hierarchy, elev []float32, nodata []bool, st Stats) error {
	c := quadtree.CodingOf(h)
	if c == nil {
		return errors.New("compress: WriteCoded needs a coded hierarchy (quadpvs.Hierarchy.Code)")
	}
	hd.CacheBytes = c.CacheBytes
	w, err := NewCodedWriter(f, hd, h.Quads(), c.Coder.Table(), elev, nodata)
	if err != nil {
		return err
	}
	for q, e := range c.Index {
		off, n := blockindex.At(e)
		if err := w.Add(q, c.Blocks[off:off+n]); err != nil {
			return err
		}
	}
	st.PinnedBytes = c.PinnedBytes
	return w.Close(st)
}

// codedSections are a version 4 coded store's sections as read, and where
// they are in the file.
type codedSections struct {
	ctab, cidx, cblk []byte
	ctabAt           int64 // CTAB's section header (it may be zstd)
	cidxAt, cblkAt   int64 // CIDX's and CBLK's payloads (always raw)
}

// readTable reads a CTAB payload whose section header is at at.
func readTable(ctab []byte, at int64) (*quadtree.CondCoder, error) {
	key := sha256.Sum256(ctab)
	coders.Lock()
	defer coders.Unlock()
	if w, ok := coders.m[key]; ok {
		if c := w.Value(); c != nil {
			return c, nil
		}
	}
	coder, err := quadtree.ReadCondTable(ctab)
	if err != nil {
		msg := err.Error()
		if fe := (*quadpvs.FormatError)(nil); errors.As(err, &fe) {
			msg = fmt.Sprintf("byte %d of the table: %s", fe.Offset, fe.Msg)
		}
		return nil, &FormatError{at, "CTAB section: " + msg}
	}
	if coders.m == nil {
		coders.m = make(map[[32]byte]weak.Pointer[quadtree.CondCoder])
	}
	for k, w := range coders.m { // forget the coders no store holds
		if w.Value() == nil {
			delete(coders.m, k)
		}
	}
	coders.m[key] = weak.Make(coder)
	return coder, nil
}

// coders are the conditional coders built from CTAB sections, by the
// section's SHA-256, while a store holds them: stores of one table (every
// handle of one file, the bakes of one build) share one coder, read only
// once built, instead of 310 KB of decoding tables each.
var coders struct {
	sync.Mutex
	m map[[32]byte]weak.Pointer[quadtree.CondCoder]
}

// finishCoded builds a version 4 coded store's hierarchy: its block
// starts (quads + 1, non-decreasing from 0 to the end of CBLK) become a
// block index, its cache of trees a cache of that many trees of the cap's
// size. Trees are checked when read (quadtree.NewCoded). Errors name the
// section and the file offset.
func (s *Store) finishCoded(seen map[string]bool, cs codedSections, end int64) error {
	for _, tag := range []string{tagElev, tagCtab, tagCidx, tagCblk, tagStat} {
		if !seen[tag] {
			return &FormatError{end, fmt.Sprintf("missing %s section", tag)}
		}
	}
	for _, tag := range []string{tagCode, tagQidx, tagRefs} {
		if seen[tag] {
			return &FormatError{end, fmt.Sprintf("%s section in a coded store", tag)}
		}
	}
	g, err := quadpvs.NewGeometry(s.Width, s.Height)
	if err != nil {
		return &FormatError{end, err.Error()}
	}
	coder, err := readTable(cs.ctab, cs.ctabAt)
	if err != nil {
		return err
	}
	quads := len(cs.cidx)/8 - 1
	c := quadtree.Coded{Coder: coder, Blocks: cs.cblk, Index: make([]uint64, quads), Ceiling: s.Cap.Codes}
	prev := uint64(0)
	for i := 0; i <= quads; i++ {
		start := binary.LittleEndian.Uint64(cs.cidx[8*i:])
		lo, hi := prev, uint64(len(cs.cblk))
		switch {
		case i == 0:
			hi = 0
		case i == quads:
			lo = hi
		}
		if start < lo || start > hi {
			return &FormatError{cs.cidxAt + int64(8*i), fmt.Sprintf("CIDX section: block start %d of quad %d, want %d to %d", start, i, lo, hi)}
		}
		if i > 0 {
			if c.Index[i-1], err = blockindex.Entry(prev, start-prev); err != nil {
				return &FormatError{cs.cidxAt + int64(8*i), "CIDX section: " + err.Error()}
			}
		}
		prev = start
	}
	per := int64(quadtree.BytesFor(max(s.Cap.Codes, 1024))) + 128
	c.CacheBytes = min(max(int64(s.CacheTrees)*per, quadpvs.MinCacheBytes), quadpvs.MaxCacheBytes)
	h, err := quadtree.NewCoded(g, c)
	if err != nil {
		var fe *quadpvs.FormatError
		if errors.As(err, &fe) {
			return &FormatError{cs.cblkAt + int64(fe.Offset), "CBLK section: " + fe.Msg}
		}
		return &FormatError{cs.cblkAt, "CBLK section: " + err.Error()}
	}
	s.Hierarchy = h
	s.inPlace = &inPlace{payload: map[string]int64{tagCblk: cs.cblkAt, tagCidx: cs.cidxAt}}
	return nil
}
