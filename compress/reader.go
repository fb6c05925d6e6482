package compress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/frontiersets/frontiersets/internal/inputfile"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Store is a loaded PVS store. It is read-only and safe for concurrent use
// by many goroutines (frontier queries share one Store). A store opened
// in place (Open, a version 5 file) reads its trees, index and elevations
// from the file's mapping: Close releases it, after which nothing of the
// store may be used.
type Store struct {
	Header
	Stats
	Hierarchy *quadpvs.Hierarchy
	Elev      []float32 // metres, row-major Width×Height
	Nodata    []bool    // nil when the DEM had no nodata cells

	inPlace *inPlace     // version 5: where the sections lie
	unmap   func() error // Open's mapping, released by Close
}

// Close releases the file mapping of a store opened by Open; the store, its
// hierarchy and every tree view read from it must not be used afterwards.
// It does nothing for a store read into memory.
func (s *Store) Close() error {
	if s.unmap == nil {
		return nil
	}
	err := s.unmap()
	s.unmap = nil
	return err
}

// Err returns the first tree of a store read in place that failed its
// checks when read (it then read as hiding nothing), as a *FormatError with
// the file offset; nil when none did.
func (s *Store) Err() error {
	err := s.Hierarchy.Err()
	var te *quadpvs.TreeError
	if err == nil || s.inPlace == nil || !errors.As(err, &te) {
		return err
	}
	return s.inPlace.treeError(s.Encoding == EncodingCoded, te)
}

// Check reads and checks every byte and tree of a store read in place, the
// work Open leaves to the first read of each tree: the SUMS section's
// checksums of the whole file, then every tree (a coded store's decoded
// once, each given its parent's); it returns the first failure as a
// *FormatError with the file offset. Stores read into memory (versions 1
// to 3) were checked whole when read; a version 4 coded store's trees are
// checked here.
func (s *Store) Check() error {
	if ip := s.inPlace; ip != nil && ip.sums != nil {
		if err := ip.sums.verify(0, ip.sums.covered); err != nil {
			return &FormatError{0, err.Error()}
		}
	}
	h := s.Hierarchy
	if quadtree.CodingOf(h) != nil {
		err := h.EachWithParent(func(int, *quadpvs.Tree, *quadpvs.Tree) error { return nil })
		var te *quadpvs.TreeError
		if errors.As(err, &te) && s.inPlace != nil {
			return s.inPlace.treeError(true, te)
		}
		if err != nil {
			return err
		}
		return s.Err()
	}
	for q := range h.Quads() + h.SharedSubtrees() {
		h.PVS(q)
	}
	return s.Err()
}

// notFile is inputfile.Check's error, which also reads as ErrNotFile.
type notFile struct{ error }

func (e notFile) Unwrap() []error { return []error{e.error, ErrNotFile} }

// Open opens the store file at path. A version 5 store is read in place
// from a read-only shared mapping of the file (on systems without mmap,
// from a copy in memory): opening reads only the header, the grid, the
// statistics and the coder's table, and each tree is checked when first
// read (Store.Err), so that opening takes time in proportion to the grid,
// not to the trees, and several processes share the file's pages. Older
// versions are read into memory (DecodeSize). Errors name path; an
// invalid store is a *FormatError with the byte offset.
func Open(path string) (*Store, error) {
	if err := inputfile.Check(path); err != nil { // a pipe's open blocks
		return nil, fmt.Errorf("%s: %w", path, notFile{err})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotFile)
	}
	if err := checkSparse(f, st.Size()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var head [fileHeaderSize]byte
	if _, err := f.ReadAt(head[:], 0); err == nil && string(head[:8]) == Magic && binary.LittleEndian.Uint32(head[8:]) == VersionAligned {
		b, unmap, err := mapFile(f, st.Size())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s, err := parseAligned(b)
		if err != nil {
			unmap()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s.unmap = unmap
		return s, nil
	}
	s, err := DecodeSize(bufio.NewReaderSize(f, 1<<20), st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ErrSparse reports a store file most of which is holes: a file that
// declares a grid its bytes do not hold (opening it would read and map
// gigabytes of zeros), since writers write every byte of a store.
var ErrSparse = errors.New("compress: sparse store file")

// sparseMin is the smallest file checkSparse looks at, in bytes.
const sparseMin = 64 << 20

// checkSparse refuses a file of size bytes, at least sparseMin, whose data
// is less than half of it (ErrSparse).
func checkSparse(f *os.File, size int64) error {
	if size < sparseMin {
		return nil
	}
	if data, ok := dataBytes(f, size); ok && data < size/2 {
		return fmt.Errorf("%w: %s of data for %s declared; a store is written whole (copy a genuine one with cp --sparse=never)",
			ErrSparse, FormatBytes(data), FormatBytes(size))
	}
	return nil
}

// Decode reads a store from r. Errors are *FormatError (matching
// ErrNotStore) for input that is not a valid store, with the byte offset:
// truncated, corrupt (checksums), foreign (magic), of another version, or
// inconsistent; a store it accepts is safe to query. Version 1 stores (no
// section header checksums) are still read. Decode reads all of r into
// memory first, so that the input's size bounds the memory as in
// DecodeSize; use DecodeSize on a file.
func Decode(r io.Reader) (*Store, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return DecodeSize(bytes.NewReader(b), int64(len(b)))
}

// DecodeSize is Decode for input of known size in bytes (a file's).
//
// Memory: every section's length is checked before its memory is
// allocated: against the input size when known; against the size the
// header implies (ELEV 4 bytes a cell, NDAT a bit a cell, QIDX 16 bytes a
// quad; HEAD and STAT at most 1 MiB); a zstd section's raw length at most
// 32,768 times its stored length (zstd's own limit). With a known size the
// grid itself is bounded by the file: CODE holds at least one 8-byte word
// per quad, so a W×H grid needs a file of at least 8·W·H bytes, and the
// loaded store takes a few times the file's size at most. size < 0 means
// unknown: then the zstd bound is the only one on ELEV, NDAT and QIDX.
func DecodeSize(r io.Reader, size int64) (*Store, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(fileHeaderSize); len(head) == fileHeaderSize && string(head[:8]) == Magic && binary.LittleEndian.Uint32(head[8:]) == VersionAligned {
		// Version 5: read whole, then in place.
		if size > maxSection {
			return nil, &FormatError{0, fmt.Sprintf("a %d-byte store, more than %d", size, int64(maxSection))}
		}
		var b []byte
		var err error
		if size >= 0 {
			b = make([]byte, size)
			if _, err = io.ReadFull(br, b); err != nil {
				return nil, &FormatError{0, "truncated file"}
			}
		} else if b, err = io.ReadAll(br); err != nil {
			return nil, err
		}
		return parseAligned(b)
	}
	r = br
	d := decoder{r: r, size: size}
	if err := d.start(Magic, "no PVSSTORE magic: not a PVS store", "", Version); err != nil {
		return nil, err
	}
	s := &Store{}
	seen := map[string]bool{}
	var qidx, refs []byte
	var codes []uint64
	var cs codedSections
	var cells, quads uint64 // quads: trees, shared subtrees included
	for {
		at := d.off
		tag, codec, stored, raw, crc, err := d.sectionHeader()
		if err != nil {
			return nil, err
		}
		if err := seenSection(seen, tag, at); err != nil {
			return nil, err
		}
		var want uint64 // exact raw length, where the header implies one
		switch tag {
		case tagHead, tagStat:
			if raw > maxJSON {
				return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes: more than the %d a header or statistics take", tag, raw, maxJSON)}
			}
		case tagElev:
			want = 4 * cells
		case tagNdat:
			want = (cells + 7) / 8
		case tagQidx:
			want = qidxEntrySize * quads
		case tagRefs:
			if s.Shared == 0 || raw < 4*(quads+1) || raw%4 != 0 {
				return nil, &FormatError{at, fmt.Sprintf("REFS section of %d bytes for %d trees, %d shared subtrees", raw, quads, s.Shared)}
			}
		case tagCtab:
			want, cs.ctabAt = quadtree.CondTableBytes, at
		case tagCidx, tagCblk:
			// Raw, so that the file bounds the memory (CIDX's 8 bytes per
			// quad are what the header's size check counts on).
			if codec != codecRaw {
				return nil, &FormatError{at, tag + " section must be raw"}
			}
			if tag == tagCidx {
				want, cs.cidxAt = 8*(quads+1), at+int64(d.hsize)
			} else {
				cs.cblkAt = at + int64(d.hsize)
			}
		case tagEnd:
		case tagCode:
			if codec != codecRaw || raw%8 != 0 {
				return nil, &FormatError{at, "CODE section must be raw whole words"}
			}
			if raw/8 < quads {
				return nil, &FormatError{at, fmt.Sprintf("CODE section of %d words for %d quads: every quad's tree takes at least one", raw/8, quads)}
			}
			if codes, err = d.words(raw/8, crc); err != nil {
				return nil, err
			}
			continue
		default:
			// Unknown sections are skipped: later minor versions may add some.
			if err := d.skip(stored, crc); err != nil {
				return nil, err
			}
			continue
		}
		if want != 0 && raw != want {
			return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes for a %d×%d grid, which needs %d", tag, raw, s.Width, s.Height, want)}
		}
		payload, err := d.section(at, tag, codec, stored, raw, crc)
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagHead:
			if err := json.Unmarshal(payload, &s.Header); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if cells, quads, err = s.Header.check(size); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if s.Encoding == EncodingCoded && d.version < 4 {
				return nil, &FormatError{at, fmt.Sprintf("header: a coded store in a version %d file (coded stores are version 4)", d.version)}
			}
		case tagElev:
			s.Elev = decodeElev(payload)
			for i, e := range s.Elev {
				if math.IsNaN(float64(e)) || math.IsInf(float64(e), 0) {
					return nil, &FormatError{at, fmt.Sprintf("ELEV section: cell (%d,%d) is %g, want a finite elevation (nodata cells hold their filled value)",
						i%s.Width, i/s.Width, e)}
				}
			}
		case tagNdat:
			s.Nodata = decodeNodata(payload)[:cells]
		case tagQidx:
			qidx = payload
		case tagRefs:
			refs = payload
		case tagCtab:
			cs.ctab = payload
		case tagCidx:
			cs.cidx = payload
		case tagCblk:
			cs.cblk = payload
		case tagStat:
			if err := json.Unmarshal(payload, &s.Stats); err != nil {
				return nil, &FormatError{at, "statistics: " + err.Error()}
			}
		case tagEnd:
			if raw != 0 {
				return nil, &FormatError{at, "END section with a payload"}
			}
			if err := d.end(); err != nil {
				return nil, err
			}
			if s.Encoding == EncodingCoded {
				return s, s.finishCoded(seen, cs, d.off)
			}
			return s, s.finish(seen, qidx, refs, codes, d.off)
		}
	}
}

// callers check the count).
func decodeElev(payload []byte) []float32 {
	elev := make([]float32, len(payload)/4)
	for i := range elev {
		elev[i] = math.Float32frombits(binary.LittleEndian.Uint32(payload[4*i:]))
	}
	return elev
}

// decodeNodata decodes an NDAT payload into 8 flags per byte.
func decodeNodata(payload []byte) []bool {
	nodata := make([]bool, 8*len(payload))
	for i := range nodata {
		nodata[i] = payload[i>>3]>>(i&7)&1 != 0
	}
	return nodata
}

// finish checks that the required sections were present and builds the
// hierarchy; section sizes were checked as they were read.
func (s *Store) finish(seen map[string]bool, qidx, refs []byte, codes []uint64, end int64) error {
	for _, tag := range []string{tagElev, tagCode, tagQidx, tagStat} {
		if !seen[tag] {
			return &FormatError{end, fmt.Sprintf("missing %s section", tag)}
		}
	}
	for _, tag := range []string{tagCtab, tagCidx, tagCblk} {
		if seen[tag] {
			return &FormatError{end, fmt.Sprintf("%s section in a flat store (encoding %q)", tag, s.Encoding)}
		}
	}
	if s.Shared > 0 && refs == nil {
		return &FormatError{end, fmt.Sprintf("missing %s section for %d shared subtrees", tagRefs, s.Shared)}
	}
	g, err := quadpvs.NewGeometry(s.Width, s.Height)
	if err != nil {
		return &FormatError{end, err.Error()}
	}
	quads := g.QuadCount()
	trees := quads + s.Shared
	f := quadtree.Flat{CodeStart: make([]uint64, trees), Len: make([]uint32, trees), NodeCount: make([]uint32, trees), Codes: codes}
	if s.Shared > 0 {
		f.Shared, f.RefBits = s.Shared, s.RefBits
		f.RefStart = make([]uint32, trees+1)
		for i := range f.RefStart {
			f.RefStart[i] = binary.LittleEndian.Uint32(refs[4*i:])
		}
		f.Refs = make([]uint32, len(refs)/4-len(f.RefStart))
		for i := range f.Refs {
			f.Refs[i] = binary.LittleEndian.Uint32(refs[4*(len(f.RefStart)+i):])
		}
	}
	for q := range trees {
		e := qidx[q*qidxEntrySize:]
		f.CodeStart[q] = binary.LittleEndian.Uint64(e)
		f.Len[q] = binary.LittleEndian.Uint32(e[8:])
		f.NodeCount[q] = binary.LittleEndian.Uint32(e[12:])
		if a := s.Allocation; a != nil && q < quads {
			if a.CeilingCodes > 0 && f.Len[q] > uint32(a.CeilingCodes) {
				return &FormatError{end, fmt.Sprintf("quad %d: %d codes, over the allocation's ceiling of %d", q, f.Len[q], a.CeilingCodes)}
			}
			if a.CeilingNodes > 0 && f.NodeCount[q] > uint32(a.CeilingNodes) {
				return &FormatError{end, fmt.Sprintf("quad %d: %d nodes, over the allocation's ceiling of %d", q, f.NodeCount[q], a.CeilingNodes)}
			}
		}
	}
	if s.Shared > 0 {
		// References could expand a few stored codes into whole 4^K trees
		// (a chain of subtrees each referring to the previous). checkRefs
		// verifies every tree's node count against what its references
		// stand for; here the counts are bounded first: each by the cap
		// the trees were shared under, or, in a store without a cap, all
		// together by 16 times the codes stored.
		bound, total := int64(max(s.Cap.Codes, s.Cap.Nodes)), int64(0)
		for i, n := range f.NodeCount {
			total += int64(n)
			if bound > 0 && int64(n) > bound {
				name := fmt.Sprintf("quad %d", i)
				if i >= quads {
					name = fmt.Sprintf("shared subtree %d", i-quads)
				}
				return &FormatError{end, fmt.Sprintf("%s: %d nodes through its references, more than the cap's %d", name, n, bound)}
			}
		}
		if stored := 32 * int64(len(codes)); bound == 0 && total > 16*stored+1<<16 {
			return &FormatError{end, fmt.Sprintf("references expand %d stored codes to %d nodes", stored, total)}
		}
	}
	h, err := quadtree.NewFlat(g, f)
	if err != nil {
		return &FormatError{end, err.Error()}
	}
	s.Hierarchy = h
	return nil
}
