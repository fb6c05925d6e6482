package quadtree

import "math"

// CodeStats tallies trees' codes by context, to measure what an entropy
// coder could spend per code against the 2 bits (2.5 with rank samples)
// each takes today, to keep more hidden cells per byte. Contexts: none;
// the node's depth; the depth and the code of the previous sibling (none
// for a first child and the root). Redundant counts the codes of a quad's
// tree that lie inside a Hidden leaf of its parent quad's tree: the parent's
// PVS is the union of its children's, so where it is hidden every child's
// is, and a coder walking both trees in lockstep would not need them.
type CodeStats struct {
	Codes     int64
	Redundant int64
	byDepth   [][5][4]int64    // [depth][previous sibling code, 4: none][code]
	cond      [][5][2][4]int64 // AddConditional's: [depth][previous sibling][parent Unknown 0, Visible 1][code]
	stack     [][3]int32
}

// Add tallies t's codes (t must not be shared).
func (cs *CodeStats) Add(t *Tree) {
	if t.n == 0 {
		return
	}
	// Depths in breadth-first order: the children of the Unknown node of
	// rank r are at 4r+1 … 4r+4, so a code's depth is its parent's + 1.
	cs.grow(0)
	cs.byDepth[0][4][t.code(0)]++
	cs.Codes += int64(t.n)
	// Codes before levelEnd have depth depth; the children of the Unknown
	// codes seen so far end at next; r counts those Unknown codes.
	depth, levelEnd, next, r := 0, 1, 1, 0
	for i := 0; i < t.n; i++ {
		if i == levelEnd {
			depth++
			levelEnd = next
		}
		if t.code(i) != Unknown {
			continue
		}
		b := 4*r + 1
		r++
		next = b + 4
		cs.grow(depth + 1)
		prev := 4
		for k := range 4 {
			s := int(t.code(b + k))
			cs.byDepth[depth+1][prev][s]++
			prev = s
		}
	}
}

func (cs *CodeStats) grow(d int) {
	for len(cs.byDepth) <= d {
		cs.byDepth = append(cs.byDepth, [5][4]int64{})
	}
}

// AddConditional tallies the codes of child that lie inside Hidden leaves
// of parent (Redundant), walking both from the root, and the other codes
// of child by their depth, previous sibling and the parent's code at the
// same node (Unknown, or Visible for a node at or below a parent's Visible
// leaf): what a coder given the parent would code (neither may be
// shared). A nil parent (the top quad's) tells nothing: all Visible.
func (cs *CodeStats) AddConditional(child, parent *Tree) {
	if child.n == 0 {
		return
	}
	ctx := func(d, prev, ps int) *[4]int64 {
		for len(cs.cond) <= d {
			cs.cond = append(cs.cond, [5][2][4]int64{})
		}
		return &cs.cond[d][prev][ps]
	}
	ps, pi0 := Visible, int32(-1)
	if parent != nil && parent.n > 0 {
		ps, pi0 = parent.code(0), 0
	}
	if ps == Hidden {
		cs.Redundant += int64(child.n)
		return
	}
	ctx(0, 4, int(ps&1))[child.code(0)]++
	// The stack holds child Unknown nodes with the parent's node at the
	// same place (-1: below a parent's Visible leaf) and their depth.
	cs.stack = append(cs.stack[:0], [3]int32{0, pi0, 0})
	for len(cs.stack) > 0 {
		e := cs.stack[len(cs.stack)-1]
		cs.stack = cs.stack[:len(cs.stack)-1]
		ci, pi, d := int(e[0]), int(e[1]), int(e[2])
		cb, pb := child.childBase(ci), -1
		if pi >= 0 && parent.code(pi) == Unknown {
			pb = parent.childBase(pi)
		}
		prev := 4
		for k := range 4 {
			pk, pctx := int32(-1), 1 // below a Visible leaf
			if pb >= 0 {
				pk = int32(pb + k)
				switch parent.code(pb + k) {
				case Hidden:
					cs.Redundant += int64(subtreeCodes(child, cb+k))
					continue // a decoder given the parent skips it
				case Unknown:
					pctx = 0
				}
			}
			s := int(child.code(cb + k))
			ctx(d+1, prev, pctx)[s]++
			prev = s
			if s == int(Unknown) {
				cs.stack = append(cs.stack, [3]int32{int32(cb + k), pk, int32(d + 1)})
			}
		}
	}
}

// subtreeCodes returns the codes of t's subtree at code i: breadth-first,
// a subtree's codes at each depth are one run.
func subtreeCodes(t *Tree, i int) int {
	n, lo, hi := 0, i, i+1 // the subtree's codes at one depth: [lo, hi)
	for lo < hi {
		n += hi - lo
		// The next depth's run: the children of the Unknown codes in [lo, hi).
		first, last := -1, -1
		for j := lo; j < hi; j++ {
			if t.code(j) == Unknown {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		if first < 0 {
			break
		}
		lo, hi = t.childBase(first), t.childBase(last)+4
	}
	return n
}

// Entropy returns the empirical entropy of the codes in bits per code with
// no context (h0), given their depth (hDepth), and given their depth and
// previous sibling (hSibling): what a static model per store of that
// context would spend, its tables aside.
func (cs *CodeStats) Entropy() (h0, hDepth, hSibling float64) {
	var all [4]int64
	var nd, ns float64
	for _, d := range cs.byDepth {
		var dep [4]int64
		for _, c := range d {
			for s, n := range c {
				dep[s] += n
				all[s] += n
			}
			ns += entropyBits(c[:])
		}
		nd += entropyBits(dep[:])
	}
	total := float64(0)
	for _, n := range all {
		total += float64(n)
	}
	if total == 0 {
		return 0, 0, 0
	}
	return entropyBits(all[:]) / total, nd / total, ns / total
}

// ConditionalEntropy returns the bits AddConditional's codes need, given
// their depth, previous sibling and the parent's code, per code tallied by
// Add: what a coder walking each quad's tree with its parent's would
// spend per code of today's trees.
func (cs *CodeStats) ConditionalEntropy() float64 {
	if cs.Codes == 0 {
		return 0
	}
	b := 0.0
	for _, d := range cs.cond {
		for _, p := range d {
			for _, c := range p {
				b += entropyBits(c[:])
			}
		}
	}
	return b / float64(cs.Codes)
}

// entropyBits returns the bits an ideal coder spends on the symbols
// counted in n: Σ n_s · log2(N / n_s).
func entropyBits(n []int64) float64 {
	var tot int64
	for _, c := range n {
		tot += c
	}
	b := 0.0
	for _, c := range n {
		if c > 0 {
			b += float64(c) * math.Log2(float64(tot)/float64(c))
		}
	}
	return b
}
