package compress

import (
	"encoding/binary"
	"fmt"

	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Writer writes a flat store as its quads' PVSs are produced, in any
// order: the trees are streamed, the tree index written at the end. A
// store without shared subtrees is format version 5 (TREE and TIDX, read
// in place by Open); one with shared subtrees version 3 (CODE, QIDX and
// REFS, read by Decode). Writing to a temporary file and renaming it is
// the caller's (internal/bake). It is not safe for concurrent use.
type Writer struct {
	sectionWriter
	h       Header
	quads   int        // trees: quads and shared subtrees
	trees   *streamed  // TREE (version 5) or CODE (version 3)
	words   uint64     // words written to it
	ix      *quadIndex // TIDX or QIDX entries, by tree index, and the trees added
	scratch []byte
	rec     []uint64
	refs    []byte // REFS payload (shared stores)
}

// NewWriter starts a store in f for a hierarchy of the given quad count,
// writing the header, the elevations (metres, row-major, Width×Height) and
// the nodata cells (nil when none). A header with shared subtrees
// (h.Shared > 0) takes quads+h.Shared trees and the references
// (SetRefs) before Close. It keeps 16 bytes per tree until Close, in
// memory or, without shared subtrees, in an IndexSpill.
func NewWriter(f File, h Header, quads int, elev []float32, nodata []bool) (*Writer, error) {
	version := uint32(VersionAligned)
	if h.Shared > 0 {
		version = VersionShared
	}
	return newWriter(f, h, quads, elev, nodata, version)
}

// newWriter is NewWriter writing the given version: VersionAligned (no
// shared subtrees) or VersionShared.
func newWriter(f File, h Header, quads int, elev []float32, nodata []bool, version uint32) (*Writer, error) {
	if len(elev) != h.Width*h.Height || (nodata != nil && len(nodata) != len(elev)) {
		return nil, fmt.Errorf("compress: %d elevations for a %d×%d grid", len(elev), h.Width, h.Height)
	}
	if h.Shared < 0 {
		return nil, fmt.Errorf("compress: %d shared subtrees", h.Shared)
	}
	h.Encoding, h.CacheTrees, h.CacheBytes = Encoding, 0, 0
	trees := quads + h.Shared
	w := &Writer{sectionWriter: newSectionWriter(f), h: h, quads: trees}
	if h.Shared > 0 && version != VersionShared {
		return nil, fmt.Errorf("compress: shared subtrees in a version %d store", version)
	}
	tag := tagTree
	if version == VersionShared {
		tag = tagCode
	}
	if err := w.begin(version, h, elev, nodata); err != nil {
		return nil, err
	}
	if w.aligned {
		// TIDX: every tree's start, then every code count, then every
		// node count.
		q := int64(trees)
		w.ix = newQuadIndex(trees, indexField{base: 0, stride: 8, width: 8},
			indexField{base: 8 * q, stride: 4, width: 4}, indexField{base: 12 * q, stride: 4, width: 4})
	} else {
		w.ix = newQuadIndex(trees, indexField{base: 0, stride: qidxEntrySize, width: 8},
			indexField{base: 8, stride: qidxEntrySize, width: 4}, indexField{base: 12, stride: qidxEntrySize, width: 4})
	}
	var err error
	w.trees, err = w.stream(tag)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Add appends the PVS of quad index q (quadpvs.Hierarchy layout). Every quad
// must be added exactly once before Close.
func (w *Writer) Add(q int, t *quadpvs.Tree) error {
	if q < 0 || q >= w.quads || w.ix.has(q) {
		return fmt.Errorf("compress: quad %d added twice or out of range (%d quads)", q, w.quads)
	}
	if err := w.ix.put(q, w.words, uint64(t.Len()), uint64(t.Nodes())); err != nil {
		return err
	}
	words := t.Codes()
	if w.aligned {
		w.rec = quadtree.AppendRecord(w.rec[:0], t)
		words = w.rec
	}
	b := w.scratch[:0]
	for _, c := range words {
		b = binary.LittleEndian.AppendUint64(b, c)
	}
	w.scratch = b
	w.words += uint64(len(words))
	return w.put(w.trees, b)
}

// SetIndexSpill keeps w's tree index in sp rather than in memory, from
// the trees added so far on (IndexSpill). Errors: a store with shared
// subtrees (its index is compressed whole), or sp set already.
func (w *Writer) SetIndexSpill(sp IndexSpill) error {
	if !w.aligned {
		return fmt.Errorf("compress: a store with shared subtrees keeps its index in memory")
	}
	return w.ix.setSpill(sp)
}

// SetRefs sets a shared store's references (quadpvs.Hierarchy's RefStart
// and Refs, one start per tree and one more).
func (w *Writer) SetRefs(start, refs []uint32) error {
	if w.h.Shared == 0 || len(start) != w.quads+1 || int(start[w.quads]) != len(refs) {
		return fmt.Errorf("compress: %d reference starts and %d references for %d trees, %d shared", len(start), len(refs), w.quads, w.h.Shared)
	}
	b := make([]byte, 0, 4*(len(start)+len(refs)))
	for _, v := range start {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range refs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	w.refs = b
	return nil
}

// AddHierarchy adds every tree of h (quads, then shared subtrees) and its
// references; the header must have h's Shared and RefBits.
func (w *Writer) AddHierarchy(h *quadpvs.Hierarchy) error {
	f := quadtree.FlatOf(h)
	if w.h.Shared != f.Shared || w.h.Shared > 0 && w.h.RefBits != f.RefBits {
		return fmt.Errorf("compress: header of %d shared subtrees (%d bits) for a hierarchy of %d (%d bits)", w.h.Shared, w.h.RefBits, f.Shared, f.RefBits)
	}
	for q := range h.Quads() + h.SharedSubtrees() {
		t := h.PVS(q)
		if err := w.Add(q, &t); err != nil {
			return err
		}
	}
	if f.Shared > 0 {
		return w.SetRefs(f.RefStart, f.Refs)
	}
	return nil
}

// Close finishes the store with its statistics: the tree index, the
// references of a shared store, the statistics, the chunk checksums
// (version 5), the end marker, and the trees' section header written back.
// It does not close f.
func (w *Writer) Close(st Stats) error {
	if q := w.ix.missing(); q >= 0 {
		return fmt.Errorf("compress: quad %d of %d was never added", q, w.quads)
	}
	if w.h.Shared > 0 && w.refs == nil {
		return fmt.Errorf("compress: a store of %d shared subtrees closed without its references", w.h.Shared)
	}
	if err := w.close(w.trees); err != nil {
		return err
	}
	streams := []*streamed{w.trees}
	if w.aligned {
		// Raw: read in place.
		tidx, err := w.indexSection(tagTidx, w.ix)
		if err != nil {
			return err
		}
		streams = append(streams, tidx)
	} else if err := w.section(tagQidx, w.ix.bytes()); err != nil {
		return err
	}
	if w.refs != nil {
		if err := w.section(tagRefs, w.refs); err != nil {
			return err
		}
	}
	return w.end(st, streams...)
}
