package quadtree

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/frontiersets/frontiersets/internal/blockindex"
)

// Coded is a hierarchy whose quad trees are kept as CondCoder blocks, each
// coded given its parent quad's tree (§3.2: the parent's PVS is the union
// of its children's), and decoded when read: the store format's coded
// sections (compress, FORMAT.md). Quad q's block is the Index[q]&(1<<26−1)
// bytes of Blocks from byte Index[q]>>26 (blockindex.At); blocks may come in any
// order. Nothing is decoded until read, and every block is checked when
// decoded.
type Coded struct {
	Coder  *CondCoder
	Blocks []byte
	Index  []uint64 // per quad: offset<<blockindex.LenBits | length, bytes of Blocks
	// CacheBytes bounds the decoded trees a coded hierarchy keeps below
	// its pinned levels, in bytes (Tree.Bytes and codedEntryBytes each):
	// MinCacheBytes to MaxCacheBytes.
	CacheBytes int64
	// Ceiling, when above 0, bounds every quad's codes (a store's cap); a
	// block announcing more is refused when read.
	Ceiling int
	// PinnedBytes is what the pinned levels' trees take decoded (their
	// Tree.Bytes and 16 bytes each), as the writer measured it: Bytes
	// reports it.
	PinnedBytes int64
	// Verify, when not nil, checks the stored bytes of Blocks[lo:hi]
	// (checksums) before they are decoded.
	Verify func(region int, lo, hi uint64) error
}

// Cache bounds, in bytes.
const (
	MinCacheBytes = 64 << 10
	MaxCacheBytes = 1 << 40
)

// maxCodesPerByte bounds the groups (four codes each: a tree of n codes
// holds (n−1)/4) the pinned levels' trees hold, together, per byte of
// their blocks, so that the trees a coded hierarchy
// keeps decoded take at most 40 bytes per byte of blocks: real stores take
// 15 to 22 (0.37 to 0.52 bits per code, pvsbake stat --codes).
const maxCodesPerByte = 128

// MaxCodesPerBlockByte bounds the codes one block announces per byte of
// it, so that decoding takes time in proportion to the blocks read: real
// blocks hold at most 92 (the urban benchmark's 0.1 GiB coded store;
// 53 on the 1025² map), 15 to 22 on average. A bake refuses to write a
// block over it.
const MaxCodesPerBlockByte = 1024

// pinQuads bounds the quads of the levels a coded hierarchy keeps once
// decoded: levels from the top down while their quads number at most this
// many together, and at most a sixteenth of all quads (levels 3 to 9 of
// the urban benchmark's 500² terrain, 5,334 quads). Every decode below
// them needs its parent's tree, and frontier growing reads the upper
// quads' trees most: on the urban 0.1 GiB coded store, pinning levels 3
// and 4 besides 5 to 9 cost 10.3 MB and took a lossy query from 0.68 to
// 0.40 ms (14.5 to 7.1 decodes).
const pinQuads = 8192

// codedTrees is a coded hierarchy's reading state.
type codedTrees struct {
	Coded
	max      int64                        // codes a tree may hold
	pinFrom  int                          // quads q ≥ pinFrom are pinned
	pins     []atomic.Pointer[Tree]       // pinned trees, decoded on first read
	pinned   atomic.Int64                 // groups of the pinned trees kept
	pinLimit int64                        // at most this many: maxCodesPerByte per byte of their blocks
	slots    []atomic.Pointer[codedEntry] // direct-mapped cache: quad q in slot q & (len−1)
	used     atomic.Int64                 // bytes of the cached entries
	checked  []atomic.Uint64              // bit q: quad q's block decoded and checked once
	decodes  atomic.Int64                 // blocks decoded so far
	hand     atomic.Uint64                // the next slot eviction looks at
	scratch  sync.Pool                    // *decodeScratch
}

type codedEntry struct {
	q     int
	bytes int64
	t     Tree
}

// decodeScratch is one decode's working memory: the decoder's references
// into the parent tree (4 bytes per code) and the outside check's positions.
type decodeScratch struct {
	prefs []int32
	pos   []uint32
}

// Code returns h's quad trees coded given their parents' (CondCoder, its
// tables built from h's trees), as a coded hierarchy keeping cacheBytes of
// decoded trees (NewCoded), its Ceiling h's largest tree. h must be flat:
// not shared, not coded. It reads every tree three times.
func (h *Hierarchy) Code(cacheBytes int64) (*Hierarchy, error) {
	if h.refStart != nil || h.coded != nil {
		return nil, fmt.Errorf("quadpvs: coding needs a hierarchy without shared subtrees, not coded yet")
	}
	var hist [CondContexts][256]uint32
	_ = h.EachWithParent(func(_ int, t, p *Tree) error {
		CondHistogram(&hist, t, p)
		return nil
	})
	c := Coded{Coder: NewCondCoder(&hist), Index: make([]uint64, h.Quads()), CacheBytes: cacheBytes}
	pinFrom := pinnedFrom(h.Layout)
	if err := h.EachWithParent(func(q int, t, p *Tree) error {
		c.Ceiling = max(c.Ceiling, t.Len())
		if q >= pinFrom {
			c.PinnedBytes += int64(t.Bytes() + 16)
		}
		off := uint64(len(c.Blocks))
		var err error
		if c.Blocks, err = c.Coder.Append(c.Blocks, t, p); err != nil {
			return fmt.Errorf("quadpvs: quad %d: %w", q, err)
		}
		if n := uint64(len(c.Blocks)) - off; uint64(t.Len()) > MaxCodesPerBlockByte*n {
			return fmt.Errorf("quadpvs: quad %d: %d codes in a block of %d bytes, more than readers take (%d per byte)", q, t.Len(), n, MaxCodesPerBlockByte)
		}
		c.Index[q], err = blockindex.Entry(off, uint64(len(c.Blocks))-off)
		return err
	}); err != nil {
		return nil, err
	}
	return NewCoded(h.G, c)
}

// pinnedFrom returns the first quad of the pinned levels (pinQuads) of a
// hierarchy like h.
func pinnedFrom(h Layout) int {
	quads := h.Quads()
	from := quads
	for l := h.G.K; l >= 0 && quads-h.LevelStart[l] <= min(pinQuads, quads/16); l-- {
		from = h.LevelStart[l]
	}
	return from
}

// PinnedFrom returns the index of the first quad whose tree a coded
// hierarchy of geometry g keeps once decoded (the upper levels, pinQuads):
// Coded.PinnedBytes counts the trees of the quads from there on.
func (g Geometry) PinnedFrom() int { return pinnedFrom(g.Layout()) }

// NewCoded returns the hierarchy of geometry g held by c. It decodes
// nothing: PVS decodes a tree when it is read (its parent first), checking
// the block's place in Blocks, c.Verify, the stream and the tree's shape,
// node count and Outside codes, and its code count against c.Ceiling and
// the geometry; the upper levels' trees (pinQuads) stay decoded, the
// others go through a cache of c.CacheBytes. A block that fails reads as
// one Visible node and Err reports it. At open it reads no block: it
// checks the index's length, the cache's size and the pinned levels'
// index entries (their blocks lie within Blocks), whose lengths set the
// bound on the groups the pinned trees may hold together (maxCodesPerByte);
// a pinned tree that would pass it fails when read. Bytes counts the
// blocks, 8 bytes per quad (the index), the coder's tables,
// c.PinnedBytes and the cache. Errors are *FormatError.
func NewCoded(g Geometry, c Coded) (*Hierarchy, error) {
	h := &Hierarchy{Layout: g.Layout()} // no per-quad arrays: the blocks stand for them
	quads := h.Quads()
	if c.Coder == nil || len(c.Index) != quads {
		return nil, &FormatError{0, fmt.Sprintf("coded hierarchy: %d index entries for %d quads, or no coder", len(c.Index), quads)}
	}
	if c.CacheBytes < MinCacheBytes || c.CacheBytes > MaxCacheBytes {
		return nil, &FormatError{0, fmt.Sprintf("cache of %d bytes, want %d to %d", c.CacheBytes, int64(MinCacheBytes), int64(MaxCacheBytes))}
	}
	ct := &codedTrees{Coded: c, max: maxTreeCodes(g)}
	if c.Ceiling > 0 {
		ct.max = min(ct.max, int64(c.Ceiling))
	}
	ct.pinFrom = pinnedFrom(h.Layout)
	ct.pins = make([]atomic.Pointer[Tree], quads-ct.pinFrom)
	// The pinned levels' blocks are not read here: on a store of millions
	// of quads they lie scattered through Blocks, and checking them took
	// most of an open from a cold page cache (5,723 blocks of 3 MB in 70 MB
	// of checksummed chunks on a 2049² store).
	var bytes int64
	for q := ct.pinFrom; q < quads; q++ {
		_, n, err := ct.entry(q)
		if err != nil {
			return nil, &FormatError{int(err.Offset), err.Error()}
		}
		bytes += int64(n)
	}
	ct.pinLimit = maxCodesPerByte * bytes
	slots := 64
	for int64(slots)*512 < c.CacheBytes && slots < 1<<24 {
		slots *= 2
	}
	ct.slots = make([]atomic.Pointer[codedEntry], slots)
	ct.checked = make([]atomic.Uint64, (quads+63)/64)
	ct.scratch.New = func() any { return new(decodeScratch) }
	h.coded, h.fails = ct, new(failures)
	return h, nil
}

// blockOffset returns the offset of the block of index entry e.
func blockOffset(e uint64) uint64 { off, _ := blockindex.At(e); return off }

// entry returns the offset and length of quad q's block, its index entry
// verified and the block checked to lie within Blocks.
func (ct *codedTrees) entry(q int) (off, n uint64, _ *TreeError) {
	if ct.Verify != nil {
		if err := ct.Verify(RegionIndex, uint64(q), uint64(q)); err != nil {
			return 0, 0, &TreeError{Quad: q, Region: RegionIndex, Msg: fmt.Sprintf("index entry: %v", err)}
		}
	}
	off, n = blockindex.At(ct.Index[q])
	if n == 0 || off > uint64(len(ct.Blocks)) || n > uint64(len(ct.Blocks))-off {
		return 0, 0, &TreeError{Quad: q, Region: RegionIndex, Msg: fmt.Sprintf("block of %d bytes at byte %d of %d", n, off, len(ct.Blocks))}
	}
	return off, n, nil
}

// block returns quad q's block, checked to lie within Blocks and verified.
func (ct *codedTrees) block(q int) ([]byte, *TreeError) {
	off, n, terr := ct.entry(q)
	if terr != nil {
		return nil, terr
	}
	if ct.Verify != nil {
		if err := ct.Verify(RegionBlocks, off, off+n); err != nil {
			return nil, &TreeError{Quad: q, Region: RegionBlocks, Offset: int64(off), Msg: err.Error()}
		}
	}
	return ct.Blocks[off : off+n : off+n], nil
}

// Decodes returns how many blocks a coded hierarchy has decoded since it
// was made (each tree read that was neither pinned nor cached, and its
// uncached ancestors: a block is decoded given its parent's tree); 0 for a
// flat hierarchy. Benchmarks and tests read it around queries to count
// their decoding work; it is a total over every goroutine. Safe for
// concurrent use.
func (h *Hierarchy) Decodes() int64 {
	if h.coded == nil {
		return 0
	}
	return h.coded.decodes.Load()
}

// CodingOf returns the coded trees of a coded hierarchy (NewCoded,
// Hierarchy.Code), nil for a flat one.
func CodingOf(h *Hierarchy) *Coded {
	if h.coded == nil {
		return nil
	}
	return &h.coded.Coded
}

// tree returns quad q's decoded tree: pinned, cached, or decoded now (its
// parent first) and kept. The tree stays valid after the cache drops it.
func (ct *codedTrees) tree(h *Hierarchy, q int) Tree {
	if q >= ct.pinFrom {
		p := &ct.pins[q-ct.pinFrom]
		if t := p.Load(); t != nil {
			return *t
		}
		t := ct.decode(h, q)
		n := int64(max(t.Len()-1, 0) / 4) // groups
		if ct.pinned.Add(n) > ct.pinLimit {
			ct.pinned.Add(-n)
			off, _ := blockindex.At(ct.Index[q])
			h.fails.fail(&TreeError{Quad: q, Region: RegionBlocks, Offset: int64(off),
				Msg: fmt.Sprintf("the pinned levels' trees hold over %d groups, %d per byte of their blocks", ct.pinLimit, maxCodesPerByte)})
			t, n = conservativeTree(), 0
		}
		if !p.CompareAndSwap(nil, &t) {
			ct.pinned.Add(-n) // another reader kept its decode
		}
		return *p.Load()
	}
	slot := &ct.slots[q&(len(ct.slots)-1)]
	if e := slot.Load(); e != nil && e.q == q {
		return e.t
	}
	e := &codedEntry{q: q, t: ct.decode(h, q)}
	e.bytes = int64(e.t.Bytes()) + codedEntryBytes
	ct.keep(slot, e)
	return e.t
}

// keep puts e in its slot and, while the cache holds more than its bytes,
// empties other slots in turn.
func (ct *codedTrees) keep(slot *atomic.Pointer[codedEntry], e *codedEntry) {
	if e.bytes > ct.CacheBytes/4 {
		return // too large to keep: decoded again when read again
	}
	if old := slot.Swap(e); old != nil {
		ct.used.Add(-old.bytes)
	}
	mask := uint64(len(ct.slots) - 1)
	n := ct.used.Add(e.bytes)
	for i := 0; n > ct.CacheBytes && i < len(ct.slots); i++ {
		s := &ct.slots[ct.hand.Add(1)&mask]
		if s == slot {
			continue
		}
		if old := s.Swap(nil); old != nil {
			n = ct.used.Add(-old.bytes)
		}
	}
}

// decode decodes quad q's block given its parent's tree, checking it; a
// failure (or a failed parent) gives the conservative tree and is kept
// for Err.
func (ct *codedTrees) decode(h *Hierarchy, q int) Tree {
	var parent *Tree
	if q != h.Quads()-1 {
		pt := ct.tree(h, h.parentOf(q))
		if isConservative(&pt) && h.Err() != nil {
			return conservativeTree()
		}
		parent = &pt
	}
	t, err := ct.decodeWith(h.G, q, parent)
	if err != nil {
		h.fails.fail(err)
		return conservativeTree()
	}
	return t
}

// decodeWith decodes and checks quad q's block given parent (nil for the
// top quad).
func (ct *codedTrees) decodeWith(g Geometry, q int, parent *Tree) (Tree, *TreeError) {
	ct.decodes.Add(1)
	b, terr := ct.block(q)
	if terr != nil {
		return Tree{}, terr
	}
	off := int64(blockOffset(ct.Index[q]))
	bad := func(at int, format string, a ...any) *TreeError {
		return &TreeError{Quad: q, Region: RegionBlocks, Offset: off + int64(at), Msg: fmt.Sprintf(format, a...)}
	}
	if b[0]&4 != 0 {
		groups, _, err := groupCount(b, true)
		if err != nil {
			fe := err.(*FormatError)
			return Tree{}, bad(fe.Offset, "%s", fe.Msg)
		}
		if n := 1 + 4*int64(groups); n > ct.max {
			return Tree{}, bad(0, "block announces %d codes, over the ceiling of %d", n, ct.max)
		} else if n > MaxCodesPerBlockByte*int64(len(b)) {
			return Tree{}, bad(0, "block of %d bytes announces %d codes, over %d per byte", len(b), n, MaxCodesPerBlockByte)
		}
	}
	sc := ct.scratch.Get().(*decodeScratch)
	defer ct.scratch.Put(sc)
	var t Tree
	var err error
	// A block decoded and checked once decodes to the same tree again
	// (its bytes verified, its parent the same): its shape and Outside
	// codes are checked the first time only.
	w, bit := &ct.checked[q>>6], uint64(1)<<(q&63)
	first := w.Load()&bit == 0
	if sc.prefs, err = ct.Coder.decode(g, &t, b, parent, sc.prefs, first); err == nil && first {
		if sc.pos, err = checkOutside(g, &t, sc.pos); err == nil {
			w.Or(bit)
		}
	}
	if err != nil {
		at, msg := 0, err.Error()
		if fe, ok := err.(*FormatError); ok {
			at, msg = fe.Offset, fe.Msg
		}
		return Tree{}, bad(at, "%s", msg)
	}
	return t, nil
}

// eachCoded calls fn with every quad's tree and its parent's, depth first
// from the top quad, each decoded once, stopping at the first error (a
// block that fails its checks, or fn's).
func (ct *codedTrees) eachCoded(h *Hierarchy, fn func(q int, t, parent *Tree) error) error {
	g := h.G
	var visit func(l, x, y int, parent *Tree) error
	visit = func(l, x, y int, parent *Tree) error {
		q := h.QuadIndex(l, x, y)
		t, err := ct.decodeWith(g, q, parent)
		if err != nil {
			return err
		}
		if err := fn(q, &t, parent); err != nil {
			return err
		}
		if l == 0 {
			return nil
		}
		cols, rows := g.QuadsAcross(l - 1)
		for k := range 4 {
			cx, cy := 2*x+k&1, 2*y+k>>1
			if cx < cols && cy < rows {
				if err := visit(l-1, cx, cy, &t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return visit(g.K, 0, 0, nil)
}

// bytes is Bytes of a coded hierarchy of quads quads.
func (ct *codedTrees) bytes(quads int) int {
	return len(ct.Blocks) + 8*quads + CondCoderBytes + int(ct.PinnedBytes) + int(ct.CacheBytes)
}

// CondCoderBytes is the memory of a CondCoder's tables: per context, a
// uint32 per symbol (frequency and sum) and a slot table of 4,096 bytes.
const CondCoderBytes = CondContexts * (2*2*256 + condM)

// codedEntryBytes is a cache entry's fixed size: the quad index, its bytes
// and the Tree (TestCodedEntryBytes checks it against unsafe.Sizeof).
const codedEntryBytes = 120
