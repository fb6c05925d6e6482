package quadtree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// CondCoder codes a quad's tree given its parent quad's: in §3.2's
// hierarchy the parent's PVS holds the union of its children's visible
// cells, so where the parent is hidden the child is too, and where the
// parent is mixed the child is likelier mixed. A tree's codes after the
// root are whole sibling groups (the four children of an Unknown node,
// codes 4r+1 … 4r+4), one byte each (code k of the group in bits 2k); it
// codes them with one frequency table per context, the context being the
// parent tree's
// statuses at the group's four quads (Hidden, Visible, Unknown or Outside
// each, 2 bits: 256 contexts, and one more for the top quad, which has no
// parent), and with range ANS (32-bit state, byte renormalisation, 12-bit
// frequencies). A decoder walks the child's codes in
// breadth-first order in step with the parent's (each queued node keeps
// its parent-tree node, or the parent's leaf status above it), so a tree
// read needs its parent decoded first.
//
// A block is a header byte — the root's code in bits 0–1, bit 2 set when
// groups follow — then the number of groups as a uvarint and the rANS
// stream (the final state, 4 bytes big-endian, then the renormalisation
// bytes). On the benchmark's urban 0.1 GiB store it spends 0.520 bits per
// code, headers included (pvsbake stat --codes); Decode takes about 2.2 ns
// per code (BenchmarkCondDecode). A coder holds 1.3 MB of tables (12-bit
// frequencies and their sums for 257 × 256 symbols, and a 4 KiB slot
// table per context). Append is safe for concurrent use, as is Decode.
type CondCoder struct {
	fc   [CondContexts][256]uint32 // frequency<<16 | cumulative frequency
	slot [CondContexts][]byte      // slot → symbol (1<<condScale)
}

// CondContexts is the number of CondCoder's contexts: the parent's
// statuses at a group's four quads (256), and no parent.
const CondContexts = 257

// condMaxFreq bounds a symbol's frequency, in 4,096ths: a group costs at
// least −log2(3968/4096) = 0.046 bits, so a block holds at most about 700
// codes per byte, under what readers take (MaxCodesPerBlockByte).
const condMaxFreq = condM - 128

const (
	condNone  = 256
	condScale = 12
	condM     = 1 << condScale
	ransL     = 1 << 23
)

// CondHistogram adds child's groups to hist by their context in parent
// (nil: the top quad). Neither tree may be shared.
func CondHistogram(hist *[CondContexts][256]uint32, child, parent *Tree) {
	condWalk(child, parent, func(ctx int, sym byte) { hist[ctx][sym]++ })
}

// condWalk calls fn with each group of child, in breadth-first order, and
// its context in parent (condNone without one).
func condWalk(child, parent *Tree, fn func(ctx int, sym byte)) {
	condWalkInto(child, parent, nil, fn)
}

// condWalkInto is condWalk with prefs as reusable memory, returned.
func condWalkInto(child, parent *Tree, prefs []int32, fn func(ctx int, sym byte)) []int32 {
	if child.n == 0 {
		return prefs
	}
	if parent != nil && parent.n == 0 {
		parent = nil
	}
	prefs = append(prefs[:0], 0)
	r := 0
	for i := 0; i < child.n; i++ {
		if child.code(i) != Unknown {
			continue
		}
		sym := byte(child.codes4(4*r + 1))
		r++
		ctx := condNone
		if parent != nil {
			ctx, prefs = condContext(parent, prefs[i], prefs)
		}
		fn(ctx, sym)
	}
	return prefs
}

// condContext returns the context of a group whose parent node (in the
// child tree) has parent-tree reference p, and appends the four children's
// references to prefs. A reference ≥ 0 is a parent-tree node; −1 − s the
// parent's leaf status s above it.
func condContext(parent *Tree, p int32, prefs []int32) (int, []int32) {
	if p >= 0 && parent.code(int(p)) == Unknown {
		base := int32(4*parent.rankAt(int(p)) + 1)
		return int(parent.codes4(int(base))), append(prefs, base, base+1, base+2, base+3)
	}
	s := Status(-1 - p)
	if p >= 0 {
		s = parent.code(int(p))
	}
	q := -1 - int32(s)
	return int(s) * 0x55, append(prefs, q, q, q, q)
}

// NewCondCoder builds a coder's tables from hist (CondHistogram over the
// trees it will code): every symbol seen in a context gets a frequency of
// at least 1 in 4096; a context never seen gets all 256 symbols.
func NewCondCoder(hist *[CondContexts][256]uint32) *CondCoder { return newCondCoder(hist, false) }

// NewCondCoderCovering is NewCondCoder for trees other than those hist
// counted (a bake's sample, CondHistogram over it): every group a tree can
// hold in a context gets a frequency of at least 1 in 4096, seen or not.
// A context of four equal statuses may come from a parent leaf above the
// group, which says nothing of the terrain's edge: any group may follow
// it. Otherwise the parent's node is the group's parent, whose four codes
// are the context: the group's codes are Outside exactly where those are
// (81 groups where none is). The top quad's context (no parent) covers all
// 256. Unseen groups cost the seen ones up to 6% of the probability mass
// in the first kind of context, 2% in the second.
func NewCondCoderCovering(hist *[CondContexts][256]uint32) *CondCoder {
	return newCondCoder(hist, true)
}

// condValid reports whether group sym may occur in context ctx (see
// NewCondCoderCovering).
func condValid(ctx int, sym int) bool {
	if ctx == condNone || ctx == 0 || ctx == 0x55 {
		return true
	}
	for k := range 4 {
		if (ctx>>(2*k)&3 == int(Outside)) != (sym>>(2*k)&3 == int(Outside)) {
			return false
		}
	}
	return true
}

func newCondCoder(hist *[CondContexts][256]uint32, cover bool) *CondCoder {
	c := &CondCoder{}
	var f [256]uint16
	for ctx := range CondContexts {
		clear(f[:])
		h := hist[ctx]
		total := uint64(0)
		for _, k := range h {
			total += uint64(k)
		}
		if total == 0 && !cover {
			for s := range h {
				h[s] = 1
			}
			total = 256
		}
		// Covering: the unseen valid symbols take 1 each, the seen ones
		// share the rest.
		spare := uint64(condM)
		if cover {
			for s, k := range h {
				if k == 0 && condValid(ctx, s) {
					f[s] = 1
					spare--
				}
			}
		}
		sum, big := int(condM-spare), 0
		if total == 0 { // covering, nothing seen: the valid symbols alike
			for s := range f {
				if f[s] > 0 {
					big = s
				}
			}
		}
		for s, k := range h {
			if k == 0 {
				continue
			}
			f[s] = uint16(max(1, uint64(k)*spare/total))
			sum += int(f[s])
			if f[s] > f[big] {
				big = s
			}
		}
		// Make them sum to 4096: the largest takes the difference when it
		// can; otherwise (many rare symbols held at 1) the others give way.
		if d := condM - sum; int(f[big])+d >= 1 {
			f[big] = uint16(int(f[big]) + d)
		} else {
			for s := 0; sum > condM; s = (s + 1) % 256 {
				if f[s] > 1 {
					f[s]--
					sum--
				}
			}
		}
		// No symbol above condMaxFreq: its excess goes to the next most
		// frequent (or, alone, to the next symbol).
		if f[big] > condMaxFreq {
			next := (big + 1) % 256
			for s := range f {
				if s != big && f[s] > f[next] {
					next = s
				}
			}
			f[next] += f[big] - condMaxFreq
			f[big] = condMaxFreq
		}
		c.build(ctx, &f)
	}
	return c
}

// build sets context ctx's frequencies f (summing to condM), their sums
// and its slot table.
func (c *CondCoder) build(ctx int, f *[256]uint16) {
	cum := uint32(0)
	slot := make([]byte, condM)
	for s := range 256 {
		c.fc[ctx][s] = uint32(f[s])<<16 | cum
		for k := range uint32(f[s]) {
			slot[cum+k] = byte(s)
		}
		cum += uint32(f[s])
	}
	c.slot[ctx] = slot
}

// CondTableBytes is the size of a CondCoder's table (Table): 256
// frequencies, uint16 little-endian, per context.
const CondTableBytes = CondContexts * 256 * 2

// Table returns the coder's frequencies, to keep beside its blocks:
// context by context (CondContexts), 256 uint16 little-endian frequencies
// each, in 4,096ths, summing to 4,096.
func (c *CondCoder) Table() []byte {
	b := make([]byte, 0, CondTableBytes)
	for ctx := range CondContexts {
		for _, fc := range c.fc[ctx] {
			b = binary.LittleEndian.AppendUint16(b, uint16(fc>>16))
		}
	}
	return b
}

// ReadCondTable returns the coder of table (as Table returns it). Errors
// are *FormatError, Offset the byte of table where a context's
// frequencies fail to sum to 4,096 or the table ends.
func ReadCondTable(table []byte) (*CondCoder, error) {
	if len(table) != CondTableBytes {
		return nil, &FormatError{min(len(table), CondTableBytes), fmt.Sprintf("conditional coder table of %d bytes, want %d", len(table), CondTableBytes)}
	}
	c := &CondCoder{}
	var f [256]uint16
	for ctx := range CondContexts {
		sum := 0
		for s := range 256 {
			f[s] = binary.LittleEndian.Uint16(table[2*(256*ctx+s):])
			sum += int(f[s])
		}
		if sum != condM {
			return nil, &FormatError{2 * 256 * ctx, fmt.Sprintf("context %d's frequencies sum to %d, want %d", ctx, sum, condM)}
		}
		c.build(ctx, &f)
	}
	return c, nil
}

// ErrCondSymbol reports a group the coder's tables cannot code (a
// frequency of 0 in its context): the coder was built from other trees.
var ErrCondSymbol = errors.New("quadpvs: group not in the conditional coder's tables")

// Append appends child's block given parent (nil for the top quad) to dst.
// Neither tree may be shared. Errors: ErrCondSymbol.
func (c *CondCoder) Append(dst []byte, child, parent *Tree) ([]byte, error) {
	var sc CondScratch
	return c.AppendScratch(dst, child, parent, &sc)
}

// CondScratch is AppendScratch's reusable memory.
type CondScratch struct {
	seq   []uint32 // ctx<<8 | group, in breadth-first order
	out   []byte
	prefs []int32
}

// AppendScratch is Append with reusable memory sc.
func (c *CondCoder) AppendScratch(dst []byte, child, parent *Tree, sc *CondScratch) ([]byte, error) {
	if child.n == 0 || len(child.refs) > 0 || parent != nil && len(parent.refs) > 0 {
		return dst, errors.New("quadpvs: conditional coding needs trees that are neither empty nor shared")
	}
	groups := (child.n - 1) / 4
	if groups == 0 {
		return append(dst, byte(child.code(0))), nil
	}
	sc.seq = sc.seq[:0]
	sc.prefs = condWalkInto(child, parent, sc.prefs, func(ctx int, sym byte) { sc.seq = append(sc.seq, uint32(ctx)<<8|uint32(sym)) })
	seq := sc.seq
	// rANS codes backwards; the bytes are reversed at the end.
	x := uint32(ransL)
	out := sc.out[:0]
	for k := len(seq) - 1; k >= 0; k-- {
		ctx, sym := int(seq[k]>>8), byte(seq[k])
		fc := c.fc[ctx][sym]
		f := fc >> 16
		if f == 0 {
			return dst, fmt.Errorf("%w: context %#x, group %#x", ErrCondSymbol, ctx, sym)
		}
		xmax := ((ransL >> condScale) << 8) * f
		for x >= xmax {
			out = append(out, byte(x))
			x >>= 8
		}
		x = (x/f)<<condScale + x%f + fc&0xffff
	}
	out = append(out, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	sc.out = out
	dst = append(dst, byte(child.code(0))|1<<2)
	dst = binary.AppendUvarint(dst, uint64(groups))
	for i := len(out) - 1; i >= 0; i-- {
		dst = append(dst, out[i])
	}
	return dst, nil
}

// Decode rebuilds the tree of block src, coded given parent (nil for the
// top quad; it must be the tree the block was coded with, not shared),
// into dst (reusing its memory) for a terrain of geometry g, and checks
// its shape (checkShape). prefs is reused for the walk and returned.
// Errors are *FormatError, Offset the byte of src where the problem was
// found.
func (c *CondCoder) Decode(g Geometry, dst *Tree, src []byte, parent *Tree, prefs []int32) ([]int32, error) {
	return c.decode(g, dst, src, parent, prefs, true)
}

// decode is Decode; without check it skips the shape check (checkShape)
// of a block decoded and checked before, given the same parent: what
// comes out is the same tree. The stream's own checks (its bytes, its
// final state, its group count) stay.
func (c *CondCoder) decode(g Geometry, dst *Tree, src []byte, parent *Tree, prefs []int32, check bool) ([]int32, error) {
	if len(src) == 0 || src[0]>>3 != 0 {
		return prefs, &FormatError{0, "conditional block header"}
	}
	root := Status(src[0] & 3)
	groups, n, err := groupCount(src, src[0]&4 != 0)
	if err != nil {
		return prefs, err
	}
	if groups == 0 && len(src) != 1 {
		return prefs, &FormatError{1, fmt.Sprintf("%d bytes after a lone root", len(src)-1)}
	}
	startGroups(dst, root, groups)
	if groups > 0 {
		if parent != nil && (parent.n == 0 || len(parent.refs) > 0) {
			parent = nil
		}
		body := src[n:]
		if len(body) < 4 {
			return prefs, &FormatError{n, "rANS state cut short"}
		}
		x := binary.BigEndian.Uint32(body)
		in := 4
		prefs = append(prefs[:0], 0)
		r := 0
		// The Unknown codes in order, a word at a time: a group decoded may
		// set codes later in the same word, so the word's mask is read
		// again after each.
		words := dst.codes
	decode:
		for j := range words {
			done := uint(0) // bits of word j visited
			for {
				if uint64(r) == groups {
					break decode
				}
				m := unknownMask(words[j]) &^ (uint64(1)<<done - 1)
				if m == 0 {
					break
				}
				b := uint(bits.TrailingZeros64(m))
				done = b + 1
				ctx := condNone
				if parent != nil {
					ctx, prefs = condContext(parent, prefs[j<<5|int(b>>1)], prefs)
				}
				s := x & (condM - 1)
				sym := c.slot[ctx][s]
				fc := c.fc[ctx][sym]
				x = (fc>>16)*(x>>condScale) + s - fc&0xffff
				for x < ransL {
					if in >= len(body) {
						return prefs, &FormatError{n + in, "rANS stream cut short"}
					}
					x = x<<8 | uint32(body[in])
					in++
				}
				setGroup(words, r, sym)
				r++
			}
		}
		if uint64(r) != groups {
			return prefs, &FormatError{n, fmt.Sprintf("%d groups announced, the codes hold %d Unknown nodes", groups, r)}
		}
		if in != len(body) || x != ransL {
			return prefs, &FormatError{n + in, fmt.Sprintf("rANS stream: %d of %d bytes read, final state %#x", in, len(body), x)}
		}
	}
	if !check {
		dst.buildRank()
		dst.nodes = dst.n - dst.count(Outside)
		return prefs, nil
	}
	if err := finishGroups(g, dst); err != nil {
		return prefs, &FormatError{0, "conditional block: " + err.Error()}
	}
	return prefs, nil
}

// maxGroups bounds a block's groups: a tree of 2^28 codes, far beyond any
// store's cap.
const maxGroups = 1 << 26

// startGroups makes dst a tree of root and groups sibling groups, all
// Hidden, reusing its memory.
func startGroups(dst *Tree, root Status, groups uint64) {
	codes := int(1 + 4*groups)
	words := (codes + 31) / 32
	if cap(dst.codes) < words {
		dst.codes = make([]uint64, words)
	}
	dst.codes = dst.codes[:words]
	clear(dst.codes)
	dst.codes[0] = uint64(root)
	dst.n, dst.refs, dst.refBits, dst.h = codes, nil, 0, nil
}

// setGroup sets sibling group k (codes 4k+1 … 4k+4, from bit 2+8k) of
// zeroed code words.
func setGroup(codes []uint64, k int, b byte) {
	bit := 2 + 8*k
	codes[bit>>6] |= uint64(b) << (bit & 63)
	if bit&63 > 56 {
		codes[bit>>6+1] |= uint64(b) >> (64 - bit&63)
	}
}

// finishGroups builds dst's rank samples, checks its shape (checkShape)
// and counts its nodes.
func finishGroups(g Geometry, dst *Tree) error {
	dst.buildRank()
	if err := checkShape(g, dst); err != nil {
		return err
	}
	outside := 0
	for _, w := range dst.codes {
		outside += bits.OnesCount64(w & (w >> 1) & lowBits)
	}
	dst.nodes = dst.n - outside
	return nil
}

// groupCount reads a block's group count after its header byte, when it
// has groups (it must then have 1 to maxGroups), and returns it with the
// offset of what follows. Errors are *FormatError.
func groupCount(src []byte, has bool) (groups uint64, n int, err error) {
	if !has {
		return 0, 1, nil
	}
	groups, k := binary.Uvarint(src[1:])
	if k <= 0 || groups == 0 || groups > maxGroups {
		return 0, 0, &FormatError{1, fmt.Sprintf("group count %d (%d bytes)", groups, k)}
	}
	return groups, 1 + k, nil
}
