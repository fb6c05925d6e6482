package quadtree

import "math/bits"

// Union is the lossless merge (§3.3) of many PVSs into one, kept as a
// Morton-ordered bitmap of the padded square rather than as a tree: the
// merged PVS of a growing frontier (§3.5), into which every added quad's PVS
// is merged. Merging trees one after another re-encodes the whole
// accumulated tree each time, which made point-by-point growing quadratic;
// here Add costs the nodes of the added tree that lie outside quads the
// union already shows wholly, and QuadStatus costs O(1).
//
// # Layout
//
// Stage 0 holds one bit per cell of the 2^K×2^K square, cell (col,row) at
// bit Morton(col,row) (column in the even bits, row in the odd ones), set
// when the cell is visible in some added tree, so the quad of level l at
// (x,y) is the 4^l bits from Morton(x·2^l, y·2^l). Stage s > 0 holds two
// bits per run of 64^s cells: any (some cell visible) and full (every
// terrain cell visible; padding counts as visible). A quad of level l is
// read from stage min(⌊l/3⌋, last) as 1, 4, 16 or up to 64 aligned bits of
// one word. Stages stop at the first one of at most 64 bits; a 512×512
// square needs 32 KiB for stage 0 and as much for its padding mask, then
// 1 KiB and 16 B.
//
// Padding cells may be set in stage 0: Add only sets whole nodes of a tree,
// and every node holds a terrain cell, so a quad's any bit is set exactly
// when one of its terrain cells is visible.
//
// A visible quad is painted at the stage its status reads (⌊l/3⌋), not
// below: its bits there, and the bits above that change. So a stage's bits
// under a run whose full bit is set higher up may be clear, and a quad is
// Visible when its own bits say so or a full bit above them does; painting
// and clearing cost a word at most per quad, not the quad's area (a
// 4096×4096 union's stage 0 is 2 MiB).
//
// The answers are those of the normalized lossless merge of the added trees
// (see Normalizer): Hidden, Visible, or Unknown for a mixed quad. The zero
// Union is empty with no geometry; call Reset before use. A Union is not
// safe for concurrent use.
type Union struct {
	g     Geometry
	any   [][]uint64 // any[s]: bit i covers cells [i·64^s, (i+1)·64^s); stage 0 in pages
	full  [][]uint64 // full[s] for s > 0; stage 0's full bits are any | pad
	full0 [][]uint64 // full stages of the empty union, copied by Reset
	// Stage 0 in pages of pageWords words, made when first painted (nil:
	// all zero), with the padding cells of each page's words: a union's
	// memory follows the terrain's area, not its square's (a 16384×1 strip
	// spans a square of 2^28 cells).
	any0, pad0 [][]uint64
	lv         [16]levelBits
	stack      []unionItem
}

// pageShift is log2 of the words of a page of stage 0 (4 KiB).
const pageShift = 9

// page0 returns the page of stage 0 holding word w, made with its padding
// when new.
func (u *Union) page0(w uint) []uint64 {
	p := w >> pageShift
	if u.any0[p] == nil {
		u.any0[p] = make([]uint64, 1<<pageShift)
		pad := make([]uint64, 1<<pageShift)
		for i := range pad {
			pad[i] = u.padWord(p<<pageShift | uint(i))
		}
		u.pad0[p] = pad
	}
	return u.any0[p]
}

// padWord returns the padding of stage 0's word w: the cells of its 8×8
// block (a level-3 quad) outside the terrain.
func (u *Union) padWord(w uint) uint64 {
	g := u.g
	c0, r0 := unMorton(uint64(w) << 6)
	switch {
	case c0 >= g.Width || r0 >= g.Height:
		return ^uint64(0)
	case c0+8 <= g.Width && r0+8 <= g.Height:
		return 0
	}
	var pad uint64
	for b := range uint64(64) {
		if c, r := unMorton(uint64(w)<<6 | b); c >= g.Width || r >= g.Height {
			pad |= 1 << b
		}
	}
	return pad
}

// levelBits says where a quad of a level is read: stage s, its first bit
// at Morton code >> (6·s), covering the bits of mask.
type levelBits struct {
	s    int
	mask uint64
	n    uint8 // log2 of the bits a quad covers: 0, 2 or 4 at every level below the root's (which may cover the top stage's word: 6)
}

// childVis and childUnk map a node's four child codes (codes4) to bit j set
// where child j is Visible, or Unknown.
var childVis, childUnk = func() (vis, unk [256]uint8) {
	for f := range 256 {
		for j := range 4 {
			switch Status(f >> (2 * j) & 3) {
			case Visible:
				vis[f] |= 1 << j
			case Unknown:
				unk[f] |= 1 << j
			}
		}
	}
	return
}()

// spreadChildren[n/2][b] is the mask of the children whose bits of b are
// set, for children of 1<<n bits each (n = 0, 2, 4), child j from bit j<<n.
var spreadChildren = func() (t [3][16]uint64) {
	for i, n := range [3]uint{0, 2, 4} {
		for b := range 16 {
			for j := range uint(4) {
				if b>>j&1 != 0 {
					t[i][b] |= (1<<(1<<n) - 1) << (j << n)
				}
			}
		}
	}
	return
}()

type unionItem struct {
	pos uint32 // Add: code position of the node's first child; addShared: of the node
	m   uint32 // Morton code of the quad's first cell
	id  int32  // the tree: -1 the added tree, else its shared subtree
	l   uint8  // quad level
}

// Reset empties u (every cell hidden) for trees of geometry g, reusing its
// memory when g is unchanged. Cost: the words the union's trees painted
// (found from the summary stages), not the square's.
func (u *Union) Reset(g Geometry) {
	if u.g != g || u.any == nil {
		u.alloc(g)
		return
	}
	u.clearWord(len(u.any)-1, 0)
}

// clearWord empties word w of stage s and, below it, the words its set
// bits stand for, restoring the full bits of the empty union.
func (u *Union) clearWord(s int, w uint) {
	if s == 0 {
		if p := u.any0[w>>pageShift]; p != nil {
			p[w&(1<<pageShift-1)] = 0
		}
		return
	}
	a := u.any[s][w]
	if a == 0 {
		return
	}
	for b := a; b != 0; b &= b - 1 {
		u.clearWord(s-1, w<<6|uint(bits.TrailingZeros64(b)))
	}
	u.full[s][w] = u.full0[s][w]
	u.any[s][w] = 0
}

// alloc sizes the stages for g, empty, and the full bits of padding. Its
// cost is the square's stages above 0 (2^(2K−6) bits) and the terrain's
// 8×8 blocks.
func (u *Union) alloc(g Geometry) {
	u.g = g
	u.any, u.full, u.full0 = u.any[:0], u.full[:0], u.full0[:0]
	for bits := 1 << (2 * g.K); ; bits >>= 6 {
		words := (bits + 63) / 64
		if len(u.full) == 0 {
			u.any = append(u.any, nil) // stage 0: any0, pad0
			u.full, u.full0 = append(u.full, nil), append(u.full0, nil)
			pages := (words + 1<<pageShift - 1) >> pageShift
			u.any0, u.pad0 = make([][]uint64, pages), make([][]uint64, pages)
		} else {
			u.any = append(u.any, make([]uint64, words))
			u.full = append(u.full, make([]uint64, words))
			u.full0 = append(u.full0, make([]uint64, words))
		}
		if bits <= 64 {
			break
		}
	}
	for l := range g.Levels() {
		st := min(l/3, len(u.any)-1)
		n := uint(2*l - 6*st) // log2 of the bits the quad covers at stage st
		u.lv[l] = levelBits{st, ^uint64(0), uint8(min(n, 6))}
		if n < 6 {
			u.lv[l].mask = 1<<(1<<n) - 1
		}
	}
	if len(u.full0) < 2 {
		return
	}
	// Full bits of the empty union: runs made of padding only. Stage 1's
	// bit i is word i of stage 0, an 8×8 block of cells: full when the
	// block lies wholly outside the terrain — every block but the
	// ⌈W/8⌉·⌈H/8⌉ that hold terrain cells.
	f1 := u.full0[1]
	blocks := min(1<<(2*g.K-6), len(f1)*64)
	for w := 0; w < blocks/64; w++ {
		f1[w] = ^uint64(0)
	}
	if r := blocks % 64; r > 0 {
		f1[blocks/64] = 1<<r - 1
	}
	bw, bh := (g.Width+7)/8, (g.Height+7)/8
	for by := range bh {
		for bx := range bw {
			i := morton(bx, by)
			f1[i>>6] &^= 1 << (i & 63)
		}
	}
	copy(u.full[1], f1)
	for s := 2; s < len(u.full0); s++ {
		below := u.full0[s-1]
		bits := min(len(below)*64, 1<<(2*g.K-6*(s-1)))
		for w := 0; w < bits/64; w++ {
			if below[w] == ^uint64(0) {
				u.full0[s][w>>6] |= 1 << (w & 63)
			}
		}
		copy(u.full[s], u.full0[s])
	}
}

// morton interleaves col (even bits) and row (odd bits), for col, row < 2^15.
func morton(col, row int) uint32 {
	return uint32(spread16(col) | spread16(row)<<1)
}

func spread16(v int) uint64 {
	x := uint64(v) & 0xffff
	x = (x | x<<8) & 0x00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f
	x = (x | x<<2) & 0x33333333
	x = (x | x<<1) & 0x55555555
	return x
}

// QuadStatus returns Hidden when no terrain cell of the quad of level l at
// column qx, row qy (among that level's quads) is visible in the union,
// Visible when all are, and Unknown otherwise. The quad must intersect the
// terrain of Reset's geometry.
func (u *Union) QuadStatus(l, qx, qy int) Status {
	return u.status(uint8(l), morton(qx<<l, qy<<l))
}

// status is QuadStatus for the quad of level l whose first cell has Morton
// code m. From the top stage down to the quad's: a run above it with no
// visible cell (its any bit clear) makes it Hidden, a full run Visible (a
// larger quad painted); else its own bits say (local).
func (u *Union) status(l uint8, m uint32) Status {
	for t := len(u.full) - 1; t > u.lv[l&15].s; t-- {
		b := m >> (6 * t)
		w, bit := b>>6, uint64(1)<<(b&63)
		if u.any[t][w]&bit == 0 {
			return Hidden
		}
		if u.full[t][w]&bit != 0 {
			return Visible
		}
	}
	return u.local(l, m)
}

// local is status read from the quad's own stage only: exact when no
// quad painted at a higher stage holds the quad (a lazy cover, see
// Layout). Add's descent guarantees it for every node below the root: a
// node is reached only when its parent was found not wholly visible, so
// no painted quad holds the parent, and the quads painted since are the
// parent's other children or lie elsewhere in the tree, all disjoint from
// the node. One word read, where status reads two more per stage above:
// on the urban 0.1 GiB stores, 28–31% of a lossless query's time went to
// status called by Add.
func (u *Union) local(l uint8, m uint32) Status {
	lb := &u.lv[l&15]
	s := lb.s
	b := m >> (6 * s)
	mask := lb.mask << (b & 63)
	w := b >> 6
	if s == 0 {
		p := u.any0[w>>pageShift]
		if p == nil {
			return Hidden
		}
		i := w & (1<<pageShift - 1)
		a := p[i] & mask
		switch {
		case a == 0:
			return Hidden
		case a == mask || (a|u.pad0[w>>pageShift][i])&mask == mask:
			return Visible
		}
		return Unknown
	}
	if u.any[s][w]&mask == 0 {
		return Hidden
	}
	if u.full[s][w]&mask == mask {
		return Visible
	}
	return Unknown
}

// Add merges t, a tree of Reset's geometry, into u losslessly. It descends
// only into t's Unknown nodes whose quads the union does not already show
// wholly, and paints t's Visible nodes. Its cost is those nodes plus the
// painted area in 64-cell words.
func (u *Union) Add(t *Tree) {
	k := uint8(u.g.K)
	switch t.Root() {
	case Visible:
		if u.status(k, 0) != Visible {
			u.paint(k, 0)
		}
		return
	case Unknown:
	default:
		return
	}
	if t.Shared() {
		u.addShared(t)
		return
	}
	if u.status(k, 0) == Visible {
		return
	}
	// The stack holds Unknown nodes whose quads the union does not show
	// wholly. A node's four children lie in one word of their stage (the
	// node's quad spans at most 64 bits there), read once and decided
	// together with bit operations: Hidden children are dropped, Visible
	// ones painted with one mask, Unknown ones pushed, each unless the
	// word already shows it wholly (a branch per child took 1.5–1.7× as
	// long on lossless queries). That read is exact: the node was not
	// wholly visible, so no quad painted at a higher stage holds a child
	// (see local), and until a child is popped only quads outside it are
	// painted (its siblings and their subtrees). Items hold the code
	// position of their node's first child (the root's: 1), computed when
	// the node is pushed from one rank of its parent's children: one rank
	// lookup per node expanded, not per node.
	st := append(u.stack[:0], unionItem{1, 0, -1, k})
	for len(st) > 0 {
		it := st[len(st)-1]
		st = st[:len(st)-1]
		c := int(it.pos)
		four := t.codes4(c)
		l := it.l - 1
		lb := &u.lv[l&15]
		s := lb.s
		step := uint32(1) << (2 * l)
		w := uint(it.m) >> (6*s + 6)
		var full uint64 // word w of stage s: the wholly visible runs
		if s == 0 {
			if p := u.any0[w>>pageShift]; p != nil {
				i := w & (1<<pageShift - 1)
				full = p[i] | u.pad0[w>>pageShift][i]
			}
		} else {
			full = u.full[s][w]
		}
		// The children's bits in the word, from bit off, 1<<n each:
		// whole has bit j set where child j is wholly visible already.
		off := uint(it.m>>(6*s)) & 63
		x := full >> off
		var whole uint64
		switch lb.n {
		case 0:
			whole = x & 15
		case 2:
			y := x & (x >> 1) & (x >> 2) & (x >> 3)
			whole = y&1 | y>>3&2 | y>>6&4 | y>>9&8
		default: // 4: the four children fill the word
			y := x & (x >> 1)
			y &= y >> 2
			y &= y >> 4
			y &= y >> 8
			whole = y&1 | y>>15&2 | y>>30&4 | y>>45&8
		}
		vis, unk := uint64(childVis[four]), uint64(childUnk[four])
		paint := spreadChildren[lb.n>>1&3][vis&^whole] << off
		if push := unk &^ whole; push != 0 {
			base := t.childBase(c) // the first child's first child
			for ; push != 0; push &= push - 1 {
				j := uint32(bits.TrailingZeros64(push))
				before := bits.OnesCount64(unk & (1<<j - 1)) // Unknown children before j
				st = append(st, unionItem{uint32(base + 4*before), it.m + j*step, -1, l})
			}
		}
		if paint != 0 {
			u.paintBits(s, w, paint)
		}
	}
	u.stack = st
}

// addShared is Add for a tree with references (kept apart from Add, whose
// loop on trees without them it would slow by 5%: grow's
// BenchmarkGrow/hierarchical/lossless). A reference (an Outside code
// inside the terrain) is pushed as the root of its shared subtree.
func (u *Union) addShared(t *Tree) {
	k := uint8(u.g.K)
	v := newView(t)
	if u.status(k, 0) == Visible {
		return
	}
	st := append(u.stack[:0], unionItem{0, 0, -1, k})
	if t.code(0) == Outside {
		e, _ := t.refAt(0)
		st[0].id = int32(e)
	}
	for len(st) > 0 {
		it := st[len(st)-1]
		st = st[:len(st)-1]
		if u.local(it.l, it.m) == Visible {
			continue
		}
		tr := v.at(it.id)
		c := tr.childBase(int(it.pos))
		four := tr.codes4(c)
		l := it.l - 1
		step := uint32(1) << (2 * l)
		for j := range uint32(4) {
			switch Status(four >> (2 * j) & 3) {
			case Visible:
				u.paintIfNew(l, it.m+j*step)
			case Unknown:
				st = append(st, unionItem{uint32(c) + j, it.m + j*step, it.id, l})
			case Outside:
				if e, ok := tr.refAt(c + int(j)); ok {
					st = append(st, unionItem{0, it.m + j*step, int32(e), l})
				}
			}
		}
	}
	u.stack = st
}

// paintIfNew paints a child of a node of Add's descent unless the union
// already shows it wholly (read locally: its parent was not wholly
// visible).
func (u *Union) paintIfNew(l uint8, m uint32) {
	if u.local(l, m) != Visible {
		u.paint(l, m)
	}
}

// paint makes the quad of level l whose first cell has Morton code m
// visible: its bits at the stage its status reads (see Layout), and the
// summary bits above them that change.
func (u *Union) paint(l uint8, m uint32) {
	lb := &u.lv[l&15]
	b := uint(m) >> (6 * lb.s)
	u.paintBits(lb.s, b>>6, lb.mask<<(b&63))
}

// paintBits sets the bits mask of word w of stage s (in any and, above
// stage 0, full) and the summary bits above them that change.
func (u *Union) paintBits(s int, w uint, mask uint64) {
	last := len(u.any) - 1
	var a uint64 // word w of stage s after the paint
	if s == 0 {
		p := u.page0(w)
		p[w&(1<<pageShift-1)] |= mask
		a = p[w&(1<<pageShift-1)]
	} else {
		u.any[s][w] |= mask
		u.full[s][w] |= mask
		a = u.any[s][w]
	}
	// Carry single bits upwards while they change.
	for ; s < last; s++ {
		var f uint64
		if s == 0 {
			f = a | u.pad0[w>>pageShift][w&(1<<pageShift-1)]
		} else {
			a, f = u.any[s][w], u.full[s][w]
		}
		bit := uint64(1) << (w & 63)
		pw := w >> 6
		a0, f0 := u.any[s+1][pw], u.full[s+1][pw]
		if a != 0 {
			u.any[s+1][pw] |= bit
		}
		if f == ^uint64(0) {
			u.full[s+1][pw] |= bit
		}
		if u.any[s+1][pw] == a0 && u.full[s+1][pw] == f0 {
			return // nothing above changes
		}
		w = pw
	}
}
