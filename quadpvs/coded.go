package quadpvs

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Coded is a hierarchy whose quad trees are kept as CondCoder blocks, each
// coded given its parent quad's tree (§3.2: the parent's PVS is the union
// of its children's), and decoded when read: the store format's coded
// sections (compress, FORMAT.md). Quad q's block is
// Blocks[Start[q]:Start[q+1]]; quads are in Hierarchy index order.
type Coded struct {
	Coder  *CondCoder
	Blocks []byte
	Start  []uint64 // len Quads()+1, byte offsets into Blocks, non-decreasing from 0
	// CacheTrees is how many decoded trees below the pinned levels a coded
	// hierarchy keeps (a power of two, 1 to MaxCacheTrees): a direct-mapped
	// cache, quad q in slot q mod CacheTrees.
	CacheTrees int
	// Ceiling, when above 0, bounds every quad's codes (a store's cap);
	// NewCoded refuses a block announcing more.
	Ceiling int
}

// MaxCacheTrees bounds Coded.CacheTrees.
const MaxCacheTrees = 1 << 16

// maxCodesPerByte bounds the codes a hierarchy's blocks announce, all
// together, per byte of blocks, so that checking them takes time in
// proportion to their size: real stores take 15 to 22 (0.37 to 0.52 bits
// per code, pvsbake stat --codes).
const maxCodesPerByte = 128

// pinQuads bounds the quads of the levels a coded hierarchy decodes once,
// when built, and keeps: levels from the top down while their quads number
// at most this many together, and at most a sixteenth of all quads (levels
// 3 to 9 of the urban benchmark's 500² terrain, 5,334 quads). Every decode
// below them needs its parent's tree, and frontier growing reads the upper
// quads' trees most: on the urban 0.1 GiB coded store, pinning levels 3
// and 4 besides 5 to 9 cost 10.3 MB and took a lossy query from 0.68 to
// 0.40 ms (14.5 to 7.1 decodes). A pinned tree costs its bytes and 16
// (its starts), as in a flat hierarchy.
const pinQuads = 8192

// codedTrees is a coded hierarchy's reading state.
type codedTrees struct {
	Coded
	pinFrom int // quads q ≥ pinFrom are pinned
	// The pinned trees, as a flat hierarchy keeps its trees: quad q's code
	// words from pinCodeStart[q-pinFrom] in pinCodes, its rank samples
	// from pinRankStart[q-pinFrom] in pinRanks.
	pinCodes                   []uint64
	pinRanks                   []uint32
	pinCodeStart, pinRankStart []uint64
	maxBytes                   int // largest unpinned tree's Tree.Bytes
	slots                      []atomic.Pointer[codedEntry]
	prefs                      sync.Pool // *[]int32 scratch for CondCoder.Decode
}

type codedEntry struct {
	q int
	t Tree
}

// Code returns h's quad trees coded given their parents' (CondCoder, its
// tables built from h's trees), as a coded hierarchy keeping cacheTrees
// decoded trees (NewCoded), its Ceiling h's largest tree. h must be flat:
// not shared, not coded. It reads every tree three times and decodes it
// once (pvsbake code took 35 s, loading and writing included, for the
// 0.47 GiB urban allocation, 1.59 billion codes).
func (h *Hierarchy) Code(cacheTrees int) (*Hierarchy, error) {
	if h.RefStart != nil || h.coded != nil {
		return nil, fmt.Errorf("quadpvs: coding needs a hierarchy without shared subtrees, not coded yet")
	}
	var hist [CondContexts][256]uint32
	_ = h.EachWithParent(func(_ int, t, p *Tree) error {
		CondHistogram(&hist, t, p)
		return nil
	})
	c := Coded{Coder: NewCondCoder(&hist), Start: make([]uint64, h.Quads()+1), CacheTrees: cacheTrees}
	for _, n := range h.Len {
		c.Ceiling = max(c.Ceiling, int(n))
	}
	if err := h.EachWithParent(func(q int, t, p *Tree) error {
		var err error
		if c.Blocks, err = c.Coder.Append(c.Blocks, t, p); err != nil {
			return fmt.Errorf("quadpvs: quad %d: %w", q, err)
		}
		c.Start[q+1] = uint64(len(c.Blocks))
		return nil
	}); err != nil {
		return nil, err
	}
	return NewCoded(h.G, c)
}

// NewCoded returns the hierarchy of geometry g held by c. It decodes every
// tree once (each given its parent's, subtrees depth first on GOMAXPROCS
// goroutines, one tree per level each), checking blocks and shapes, and
// fills Len and NodeCount; the trees of the upper levels (pinQuads) stay
// decoded. PVS then decodes a tree when it is read, through a cache of
// c.CacheTrees trees; Bytes counts the blocks, 16 bytes per quad (block
// start, code and node counts), the coder's tables, the pinned trees and
// the cache full of the largest tree. Errors are *FormatError, Offset the
// byte of c.Blocks where a quad's block failed.
func NewCoded(g Geometry, c Coded) (*Hierarchy, error) {
	h := NewHierarchy(g)
	h.CodeStart, h.RankStart = nil, nil // the blocks stand for them
	quads := h.Quads()
	if c.Coder == nil || len(c.Start) != quads+1 {
		return nil, &FormatError{0, fmt.Sprintf("coded hierarchy: %d block starts for %d quads, or no coder", len(c.Start), quads)}
	}
	if c.Start[0] != 0 || c.Start[quads] != uint64(len(c.Blocks)) {
		return nil, &FormatError{0, fmt.Sprintf("coded hierarchy: blocks from byte %d to %d of %d", c.Start[0], c.Start[quads], len(c.Blocks))}
	}
	if c.CacheTrees < 1 || c.CacheTrees > MaxCacheTrees || c.CacheTrees&(c.CacheTrees-1) != 0 {
		return nil, &FormatError{0, fmt.Sprintf("cache of %d trees, want a power of two from 1 to %d", c.CacheTrees, MaxCacheTrees)}
	}
	ceiling := int64(c.Ceiling)
	if ceiling <= 0 {
		ceiling = (int64(1)<<(2*g.K+2) - 1) / 3 // the full tree of the square
	}
	var total int64
	for q := range quads {
		if c.Start[q+1] < c.Start[q] {
			return nil, &FormatError{int(c.Start[q]), fmt.Sprintf("quad %d's block ends at byte %d, before it starts", q, c.Start[q+1])}
		}
		b := c.block(q)
		if len(b) == 0 {
			return nil, &FormatError{int(c.Start[q]), fmt.Sprintf("quad %d's block is empty", q)}
		}
		groups, _, err := groupCount(b, b[0]&4 != 0)
		if err != nil {
			return nil, &FormatError{int(c.Start[q]) + err.(*FormatError).Offset, fmt.Sprintf("quad %d: %s", q, err.(*FormatError).Msg)}
		}
		n := 1 + 4*int64(groups)
		if n > ceiling {
			return nil, &FormatError{int(c.Start[q]), fmt.Sprintf("quad %d's block announces %d codes, over the ceiling of %d", q, n, ceiling)}
		}
		total += n
	}
	if total > maxCodesPerByte*int64(len(c.Blocks)) {
		return nil, &FormatError{0, fmt.Sprintf("the blocks announce %d codes in %d bytes, over %d per byte", total, len(c.Blocks), maxCodesPerByte)}
	}
	ct := &codedTrees{Coded: c, slots: make([]atomic.Pointer[codedEntry], c.CacheTrees)}
	ct.pinFrom = quads
	for l := g.K; l >= 0 && quads-h.LevelStart[l] <= min(pinQuads, quads/16); l-- {
		ct.pinFrom = h.LevelStart[l]
	}
	pinned := make([]Tree, quads-ct.pinFrom)
	if err := ct.check(h, pinned); err != nil {
		return nil, err
	}
	ct.pinCodeStart, ct.pinRankStart = make([]uint64, len(pinned)), make([]uint64, len(pinned))
	for i := range pinned {
		ct.pinCodeStart[i], ct.pinRankStart[i] = uint64(len(ct.pinCodes)), uint64(len(ct.pinRanks))
		ct.pinCodes = append(ct.pinCodes, pinned[i].codes...)
		ct.pinRanks = append(ct.pinRanks, pinned[i].rank...)
	}
	h.coded = ct
	return h, nil
}

// check decodes every tree of h once, each given its parent's, filling
// h.Len, h.NodeCount, pinned (the trees of quads from pinFrom on) and
// maxBytes: the levels above the highest of at least splitQuads quads
// level by level, then each quad of that level and the quads under it,
// depth first, on GOMAXPROCS goroutines. The error reported is that of the first failing quad in
// that order (the upper levels, then the split level's quads by index).
func (ct *codedTrees) check(h *Hierarchy, pinned []Tree) error {
	g := h.G
	split := 0
	for l := g.K; l >= 0; l-- {
		if c, r := g.QuadsAcross(l); c*r >= splitQuads {
			split = l
			break
		}
	}
	var top codedCheck
	top.trees = make([]Tree, g.Levels())
	var prev []Tree // the decoded trees of level l+1, row-major
	parentTree := func(l, x, y int) *Tree {
		if l == g.K {
			return nil
		}
		c, _ := g.QuadsAcross(l + 1)
		return &prev[(y>>1)*c+x>>1]
	}
	for l := g.K; l > split; l-- {
		c, r := g.QuadsAcross(l)
		cur := make([]Tree, 0, c*r)
		for y := range r {
			for x := range c {
				if err := ct.checkQuad(h, &top, pinned, l, x, y, parentTree(l, x, y), false); err != nil {
					return err
				}
				cur = append(cur, top.trees[l].Clone())
			}
		}
		prev = cur
	}
	c, r := g.QuadsAcross(split)
	jobs := c * r
	errs := make([]error, jobs)
	workers := min(runtime.GOMAXPROCS(0), jobs)
	checks := make([]codedCheck, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range workers {
		w := &checks[k]
		w.trees = make([]Tree, g.Levels())
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < jobs; j = int(next.Add(1) - 1) {
				x, y := j%c, j/c
				errs[j] = ct.checkQuad(h, w, pinned, split, x, y, parentTree(split, x, y), true)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	ct.maxBytes = top.maxBytes
	for _, w := range checks {
		ct.maxBytes = max(ct.maxBytes, w.maxBytes)
	}
	return nil
}

// splitQuads is how many quads a level needs for check to share them out.
const splitQuads = 64

// codedCheck is one goroutine's scratch for check: a tree per level (the
// quads on the path being checked) and the decoder's scratch.
type codedCheck struct {
	trees    []Tree
	prefs    []int32
	maxBytes int
}

// checkQuad decodes quad (l,x,y) given parent (nil for the top quad) into
// w.trees[l], records its counts, keeps it when pinned and, when deep,
// checks the quads under it the same way.
func (ct *codedTrees) checkQuad(h *Hierarchy, w *codedCheck, pinned []Tree, l, x, y int, parent *Tree, deep bool) error {
	q := h.QuadIndex(l, x, y)
	var err error
	if w.prefs, err = ct.Coder.Decode(h.G, &w.trees[l], ct.block(q), parent, w.prefs); err != nil {
		off, msg := 0, err.Error()
		if fe, ok := err.(*FormatError); ok {
			off, msg = fe.Offset, fe.Msg
		}
		return &FormatError{int(ct.Start[q]) + off, fmt.Sprintf("quad %d (level %d, %d,%d): %s", q, l, x, y, msg)}
	}
	t := &w.trees[l]
	h.Len[q], h.NodeCount[q] = uint32(t.n), uint32(t.nodes)
	if q >= ct.pinFrom {
		pinned[q-ct.pinFrom] = t.Clone()
	} else {
		w.maxBytes = max(w.maxBytes, t.Bytes())
	}
	if !deep || l == 0 {
		return nil
	}
	cols, rows := h.G.QuadsAcross(l - 1)
	for k := range 4 {
		cx, cy := 2*x+k&1, 2*y+k>>1
		if cx < cols && cy < rows {
			if err := ct.checkQuad(h, w, pinned, l-1, cx, cy, t, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Coded) block(q int) []byte { return c.Blocks[c.Start[q]:c.Start[q+1]] }

// Coding returns the coded trees of a coded hierarchy (NewCoded, Code),
// nil for a flat one.
func (h *Hierarchy) Coding() *Coded {
	if h.coded == nil {
		return nil
	}
	return &h.coded.Coded
}

// tree returns quad q's decoded tree: pinned, cached, or decoded now (its
// parent first) and cached. The blocks were checked by NewCoded, so a
// failure here is a broken invariant.
func (ct *codedTrees) tree(h *Hierarchy, q int) Tree {
	if q >= ct.pinFrom {
		i := q - ct.pinFrom
		return flatTree(ct.pinCodes, ct.pinRanks, ct.pinCodeStart[i], ct.pinRankStart[i], int(h.Len[q]), int(h.NodeCount[q]))
	}
	slot := &ct.slots[q&(len(ct.slots)-1)]
	if e := slot.Load(); e != nil && e.q == q {
		return e.t
	}
	pt := ct.tree(h, h.parentOf(q))
	e := &codedEntry{q: q}
	ps, _ := ct.prefs.Get().(*[]int32)
	if ps == nil {
		ps = new([]int32)
	}
	var err error
	*ps, err = ct.Coder.Decode(h.G, &e.t, ct.block(q), &pt, *ps)
	ct.prefs.Put(ps)
	if err != nil {
		panic(fmt.Sprintf("quadpvs: quad %d's checked block: %v", q, err))
	}
	slot.Store(e)
	return e.t
}

// bytes is Bytes of a coded hierarchy of quads quads.
func (ct *codedTrees) bytes(quads int) int {
	b := len(ct.Blocks) + 8*len(ct.Start) + 8*quads + condCoderBytes
	b += 8*len(ct.pinCodes) + 4*len(ct.pinRanks) + 16*len(ct.pinCodeStart)
	// A cache entry: the tree's words and samples, the Tree and the entry.
	return b + len(ct.slots)*(8+ct.maxBytes+codedEntryBytes)
}

// condCoderBytes is a CondCoder's tables: per context, a uint32 per symbol
// (frequency and sum) and a slot table of 4,096 bytes.
const condCoderBytes = CondContexts * (2*2*256 + condM)

// codedEntryBytes is a cache entry's fixed size: the quad index and the
// Tree (TestCodedEntryBytes checks it against unsafe.Sizeof).
const codedEntryBytes = 112
