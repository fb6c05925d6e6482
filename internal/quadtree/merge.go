package quadtree

// Mode selects the merge of §3.3.
type Mode uint8

const (
	// Lossless keeps, where one node is Unknown and the other Hidden, the
	// Unknown node's subtree (case 4): the result is exactly the union.
	Lossless Mode = iota
	// Lossy makes such a node Visible: a smaller tree that is still
	// conservative (it never hides a cell the union shows).
	Lossy
)

func (m Mode) String() string {
	if m == Lossy {
		return "lossy"
	}
	return "lossless"
}

// Merger holds the scratch of merges (a queue of node pairs); reuse one per
// goroutine so that merging allocates nothing in steady state. It is not safe
// for concurrent use.
type Merger struct {
	q  []pair
	fa Tree // a shared first operand, expanded
	cq []cursor
	sq []spair
}

// pair is a node of a (or -1) and the node of b at the same quad (or -1):
// -1 on one side means the other side's subtree is copied.
type pair struct{ a, b int32 }

// Merge writes into dst (reusing its memory; dst must not be a or b) the
// union of the visible sets of a and b, two trees of the same geometry, in
// one simultaneous breadth-first traversal (§3.3):
//
//	both Unknown              → Unknown, continue below
//	both Hidden               → Hidden
//	at least one Visible      → Visible
//	one Unknown, other Hidden → the Unknown subtree (Lossless) or Visible (Lossy)
//
// Time is linear in the nodes visited, at most a.Len() + b.Len(). When b
// has references (a shared hierarchy's tree) they are followed in place
// (mergeShared), so that the cost stays that of the nodes visited; a
// shared a is expanded first.
func (m *Merger) Merge(dst, a, b *Tree, mode Mode) {
	if a.Shared() {
		a = a.flat(&m.fa, &m.cq)
	}
	if b.Shared() {
		m.mergeShared(dst, a, b, mode)
		return
	}
	w := newWriter(dst)
	q := append(m.q[:0], pair{0, 0})
	for h := 0; h < len(q); h++ {
		p := q[h]
		var s Status
		switch {
		case p.b < 0: // copying a's subtree
			s = a.code(int(p.a))
			if s == Unknown {
				c := int32(a.childBase(int(p.a)))
				q = append(q, pair{c, -1}, pair{c + 1, -1}, pair{c + 2, -1}, pair{c + 3, -1})
			}
		case p.a < 0: // copying b's subtree
			s = b.code(int(p.b))
			if s == Unknown {
				c := int32(b.childBase(int(p.b)))
				q = append(q, pair{-1, c}, pair{-1, c + 1}, pair{-1, c + 2}, pair{-1, c + 3})
			}
		default:
			sa, sb := a.code(int(p.a)), b.code(int(p.b))
			switch {
			case sa == Visible || sb == Visible:
				s = Visible
			case sa == sb && sa != Unknown: // Hidden or Outside on both
				s = sa
			case sa == Unknown && sb == Unknown:
				s = Unknown
				ca, cb := int32(a.childBase(int(p.a))), int32(b.childBase(int(p.b)))
				q = append(q, pair{ca, cb}, pair{ca + 1, cb + 1}, pair{ca + 2, cb + 2}, pair{ca + 3, cb + 3})
			case mode == Lossy:
				s = Visible
			case sa == Unknown: // sb Hidden
				s = Unknown
				c := int32(a.childBase(int(p.a)))
				q = append(q, pair{c, -1}, pair{c + 1, -1}, pair{c + 2, -1}, pair{c + 3, -1})
			default: // sb Unknown, sa Hidden
				s = Unknown
				c := int32(b.childBase(int(p.b)))
				q = append(q, pair{-1, c}, pair{-1, c + 1}, pair{-1, c + 2}, pair{-1, c + 3})
			}
		}
		w.put(s)
	}
	m.q = q
	w.finish()
}

// spair is pair with b's tree (view's id: -1 b itself, else its shared
// subtree).
type spair struct{ a, b, id int32 }

// mergeShared is Merge for a b with references: b's side is a node of b or
// of one of its shared subtrees, a reference read as the Unknown root of
// its subtree. It stays apart from Merge's loop, which it would slow 1.4–
// 1.7× on trees without references (BenchmarkMerge, one loop for both).
func (m *Merger) mergeShared(dst, a, b *Tree, mode Mode) {
	w := newWriter(dst)
	v := newView(b)
	q := append(m.sq[:0], spair{0, 0, -1})
	for h := 0; h < len(q); h++ {
		p := q[h]
		var s, sb Status
		id, pb := p.id, int(p.b)
		if p.b >= 0 {
			id, pb, sb = v.follow(p.id, pb, v.at(p.id).code(pb))
		}
		// children of b's node, in its tree
		bkids := func() int32 { return int32(v.at(id).childBase(pb)) }
		switch {
		case p.b < 0: // copying a's subtree
			s = a.code(int(p.a))
			if s == Unknown {
				c := int32(a.childBase(int(p.a)))
				q = append(q, spair{c, -1, 0}, spair{c + 1, -1, 0}, spair{c + 2, -1, 0}, spair{c + 3, -1, 0})
			}
		case p.a < 0: // copying b's subtree
			s = sb
			if s == Unknown {
				c := bkids()
				q = append(q, spair{-1, c, id}, spair{-1, c + 1, id}, spair{-1, c + 2, id}, spair{-1, c + 3, id})
			}
		default:
			sa := a.code(int(p.a))
			switch {
			case sa == Visible || sb == Visible:
				s = Visible
			case sa == sb && sa != Unknown: // Hidden or Outside on both
				s = sa
			case sa == Unknown && sb == Unknown:
				s = Unknown
				ca, cb := int32(a.childBase(int(p.a))), bkids()
				q = append(q, spair{ca, cb, id}, spair{ca + 1, cb + 1, id}, spair{ca + 2, cb + 2, id}, spair{ca + 3, cb + 3, id})
			case mode == Lossy:
				s = Visible
			case sa == Unknown: // sb Hidden
				s = Unknown
				c := int32(a.childBase(int(p.a)))
				q = append(q, spair{c, -1, 0}, spair{c + 1, -1, 0}, spair{c + 2, -1, 0}, spair{c + 3, -1, 0})
			default: // sb Unknown, sa Hidden
				s = Unknown
				c := bkids()
				q = append(q, spair{-1, c, id}, spair{-1, c + 1, id}, spair{-1, c + 2, id}, spair{-1, c + 3, id})
			}
		}
		w.put(s)
	}
	m.sq = q
	w.finish()
}

// MergeInto merges t into the accumulator acc (the PVS of a growing region),
// using spare as the second buffer: afterwards acc holds the union and spare
// holds acc's former memory for the next call.
func (m *Merger) MergeInto(acc, spare, t *Tree, mode Mode) {
	m.Merge(spare, acc, t, mode)
	*acc, *spare = *spare, *acc
}
