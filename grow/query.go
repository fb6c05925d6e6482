package grow

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Scratch is one goroutine's working memory for queries, reused from query
// to query so that steady-state queries allocate little. The zero Scratch is
// ready to use; it must not be shared between goroutines.
type Scratch struct {
	p       [2]player
	m       quadpvs.Merger
	stack   []uint64
	nb      []Quad
	lookups int // quad PVSs read by the current query (Result.Lookups)
}

// player is one side's growing state.
type player struct {
	// The merged PVS of the frontier: a Union for lossless merges, a tree
	// for lossy ones, whose result depends on the trees' shapes (§3.3).
	union      quadpvs.Union
	acc, spare quadpvs.Tree
	marks      marks // the quads touched: member, queued, frontier cells inside
	quads      []Quad
	points     int
	queue      []qitem // FIFO from head, or a min-heap on ground height
	head       int
	seq        int
}

type qitem struct {
	q      Quad
	ground float32
	seq    int
}

func (s *Scratch) reset() {
	s.lookups = 0
	for i := range s.p {
		p := &s.p[i]
		p.marks.reset()
		p.quads, p.points, p.queue, p.head, p.seq = p.quads[:0], 0, p.queue[:0], 0, 0
	}
}

// Grow computes the frontier set of players at cells a and b (col,row on the
// store's grid) with s's memory, writing it into dst (whose slices it
// reuses). Errors: ErrOutside, ErrNodata, ErrOptions. Mutually visible
// points are a normal answer (dst.MutuallyVisible, empty frontiers), and
// so are two players in one cell, who see each other.
func (gr *Grower) Grow(a, b [2]int, opt Options, s *Scratch, dst *Result) error {
	return gr.GrowContext(context.Background(), a, b, opt, s, dst)
}

// GrowContext is Grow that stops when ctx is done (checked every 32 quads
// considered), returning an error wrapping ctx.Err().
func (gr *Grower) GrowContext(ctx context.Context, a, b [2]int, opt Options, s *Scratch, dst *Result) (err error) {
	defer fault.Recover(&err, fault.Arm())
	start := time.Now()
	g := gr.g
	if opt.Neighbours == 0 {
		opt.Neighbours = 4
	}
	if opt.Neighbours != 4 && opt.Neighbours != 8 {
		return fmt.Errorf("%w: %d neighbours, want 4 or 8", ErrOptions, opt.Neighbours)
	}
	if err := gr.checkPoints(a, b); err != nil {
		return err
	}
	s.reset()
	*dst = Result{A: Frontier{Col: a[0], Row: a[1], Quads: dst.A.Quads[:0], morton: dst.A.morton[:0], g: g},
		B: Frontier{Col: b[0], Row: b[1], Quads: dst.B.Quads[:0], morton: dst.B.morton[:0], g: g}}
	qa, qb := Quad{0, a[0], a[1]}, Quad{0, b[0], b[1]}
	if a == b || !gr.mutuallyHidden(qa, qb, &s.lookups) {
		dst.MutuallyVisible = true
		dst.Lookups = s.lookups
		dst.Elapsed = time.Since(start)
		return nil
	}
	if opt.Method == Hierarchical {
		qa, qb = gr.ascend(qa, qb, &s.lookups)
	}
	if qa.Level == 0 && qb.Level == 0 && opt.Method == Hierarchical {
		// Only the points qualify: growing along single cells is the simple
		// method's job (§3.5, step 1); the frontiers are the points.
		gr.start(s, 0, qa, false, opt)
		gr.start(s, 1, qb, false, opt)
	} else {
		gr.start(s, 0, qa, true, opt)
		gr.start(s, 1, qb, true, opt)
		if dst.Steps, dst.Truncated, err = gr.step2(ctx, s, opt); err != nil {
			return err
		}
	}
	gr.result(&s.p[0], &dst.A)
	gr.result(&s.p[1], &dst.B)
	dst.Lookups = s.lookups
	dst.Elapsed = time.Since(start)
	return nil
}

// checkPoints returns ErrOutside or ErrNodata for cells that cannot hold
// the two players.
func (gr *Grower) checkPoints(a, b [2]int) error {
	for _, pt := range [2][2]int{a, b} {
		if err := gr.CheckCell(pt); err != nil {
			return err
		}
	}
	return nil
}

// MutuallyVisible reports whether players at cells a and b may see each
// other in either direction according to the store's PVSs — each cell's
// own, or that of a quad holding it up to the levels a coded store keeps
// decoded, which holds the cell's (hidesVia): the first test of step 1
// (§3.5), without growing anything. Errors are Grow's.
func (gr *Grower) MutuallyVisible(a, b [2]int) (_ bool, err error) {
	defer fault.Recover(&err, fault.Arm())
	if err := gr.checkPoints(a, b); err != nil {
		return false, err
	}
	var n int
	return a == b || !gr.mutuallyHidden(Quad{0, a[0], a[1]}, Quad{0, b[0], b[1]}, &n), nil
}

// MaySee reports whether a player at cell observer may see one at cell
// target according to the store's per-point PVS of observer: the target's
// cell is visible or unknown there (a capped PVS errs towards visible). It is
// the one-direction test a server filtering updates by visibility uses.
// Errors are Grow's.
func (gr *Grower) MaySee(observer, target [2]int) (_ bool, err error) {
	defer fault.Recover(&err, fault.Arm())
	if err := gr.checkPoints(observer, target); err != nil {
		return false, err
	}
	if observer == target {
		return true, nil
	}
	t := gr.pvs(Quad{0, observer[0], observer[1]})
	return t.QuadStatus(gr.g, 0, target[0], target[1]) != quadpvs.Hidden, nil
}

// ascend is step 1: alternately raise each player's quad to its parent while
// the two quads stay disjoint and mutually hidden. It counts the PVSs it
// reads in *n.
func (gr *Grower) ascend(qa, qb Quad, n *int) (Quad, Quad) {
	for {
		moved := false
		if qa.Level < gr.g.K {
			if pa := qa.Parent(); !pa.Overlaps(qb) && gr.mutuallyHidden(pa, qb, n) {
				qa, moved = pa, true
			}
		}
		if qb.Level < gr.g.K {
			if pb := qb.Parent(); !pb.Overlaps(qa) && gr.mutuallyHidden(qa, pb, n) {
				qb, moved = pb, true
			}
		}
		if !moved {
			return qa, qb
		}
	}
}

// QuadsHidden reports whether quads p and q are disjoint and each one's PVS
// (the union of its cells' per-point PVSs, capped towards visible) marks the
// other hidden: then no cell of p sees any cell of q and none of q any of p
// (step 1's test, §3.5, applied to any two quads). Both quads must lie on
// the store's hierarchy (level ≤ Geometry().K, inside its grid); it does not
// check. Safe for concurrent use.
func (gr *Grower) QuadsHidden(p, q Quad) (hidden bool) {
	var err error
	defer gr.guard(&err)
	defer fault.Recover(&err, fault.Arm())
	var n int
	return !p.Overlaps(q) && gr.mutuallyHidden(p, q, &n)
}

// Hides reports whether quad p's PVS marks quad q hidden: no cell of p
// sees any cell of q (the PVS holds the union of p's cells' per-point PVSs,
// capped towards visible). It is one direction of QuadsHidden, which a
// caller may certify with different quads each way: p's PVS hides q and
// that of a quad holding q hides p. Both quads must lie on the store's
// hierarchy; it does not check. Safe for concurrent use.
func (gr *Grower) Hides(p, q Quad) bool {
	var err error
	defer gr.guard(&err)
	defer fault.Recover(&err, fault.Arm())
	t := gr.pvs(p)
	return t.QuadStatus(gr.g, q.Level, q.X, q.Y) == quadpvs.Hidden
}

// HidesEach sets hidden[k] to Hides(ps[k], q) for every quad of ps: the
// descents of the many trees run side by side (quadpvs.Hierarchy.QuadStatusIn),
// 1.9× as fast as one Hides after another on the urban 0.5 GiB store
// (36 against 68 ns per tree, 1,024 cells against one).
// len(hidden) must be at least len(ps). Safe for concurrent use.
func (gr *Grower) HidesEach(ps []Quad, q Quad, hidden []bool) {
	var err error
	defer gr.guard(&err)
	defer func() {
		if err != nil {
			clear(hidden[:len(ps)]) // not hidden: the conservative answer
		}
	}()
	defer fault.Recover(&err, fault.Arm())
	const chunk = 64
	var (
		trees [chunk]int32
		st    [chunk]quadpvs.Status
	)
	for lo := 0; lo < len(ps); lo += chunk {
		m := min(chunk, len(ps)-lo)
		for k, p := range ps[lo : lo+m] {
			trees[k] = int32(gr.index(p))
		}
		gr.h.QuadStatusIn(trees[:m], q.Level, q.X, q.Y, st[:m])
		for k := range m {
			hidden[lo+k] = st[k] == quadpvs.Hidden
		}
	}
}

// PVS returns quad q's PVS in the store's hierarchy (a view of the store's
// memory, not to be changed), for walks such as quadpvs.Tree.QuadStatuses.
// q must lie on the hierarchy. Safe for concurrent use.
func (gr *Grower) PVS(q Quad) quadpvs.Tree { return gr.pvs(q) }

// mutuallyHidden is step 1's test: each quad's PVS marks the other hidden
// (hidesVia). The second direction is only asked when the first holds. It
// counts the PVSs it reads in *n.
func (gr *Grower) mutuallyHidden(p, q Quad, n *int) bool {
	return gr.hidesVia(p, q, n) && gr.hidesVia(q, p, n)
}

// hidesVia reports whether no cell of p sees any cell of q by the stored
// PVSs: p's PVS, or that of one of its ancestors up to the first level a
// coded hierarchy keeps decoded (pinLevel), marks q hidden. An ancestor's
// PVS holds the union of p's cells' (§3.2) and a cap only turns hidden
// codes visible, so where it marks q hidden p's cells see nothing of q.
// The ancestors are asked from the top down, the order in which a coded
// hierarchy decodes them to reach p's tree, and the first that marks q
// hidden spares the decoding of the trees below it; flat and coded stores
// of the same trees answer alike.
func (gr *Grower) hidesVia(p, q Quad, n *int) bool {
	for l := max(min(gr.pinLevel, gr.g.K), p.Level); l >= p.Level; l-- {
		d := l - p.Level
		*n++
		a := gr.pvs(Quad{l, p.X >> d, p.Y >> d})
		if a.QuadStatus(gr.g, q.Level, q.X, q.Y) == quadpvs.Hidden {
			return true
		}
	}
	return false
}

func (gr *Grower) pvs(q Quad) quadpvs.Tree { return gr.h.PVS(gr.h.QuadIndex(q.Level, q.X, q.Y)) }

func (gr *Grower) index(q Quad) int { return gr.h.QuadIndex(q.Level, q.X, q.Y) }

// start makes q player i's frontier and its PVS, and queues its neighbours.
func (gr *Grower) start(s *Scratch, i int, q Quad, queue bool, opt Options) {
	p := &s.p[i]
	s.lookups++
	t := gr.pvs(q)
	if opt.Merge == quadpvs.Lossless {
		p.union.Reset(gr.g)
		p.union.Add(&t)
	} else {
		t.CopyTo(&p.acc)
	}
	gr.insert(s, p, q)
	p.marks.put(gr.index(q)).flags |= markQueued
	if queue {
		gr.pushNeighbours(s, p, q, opt)
	}
}

// cellsIn returns the terrain cells of quad q.
func (gr *Grower) cellsIn(q Quad) int {
	x0, y0 := q.X<<q.Level, q.Y<<q.Level
	w := min(x0+1<<q.Level, gr.g.Width) - x0
	h := min(y0+1<<q.Level, gr.g.Height) - y0
	return max(w, 0) * max(h, 0)
}

// insert adds q to p's frontier and counts its cells in q and its ancestors.
func (gr *Grower) insert(s *Scratch, p *player, q Quad) {
	p.marks.put(gr.index(q)).flags |= markMember
	p.quads = append(p.quads, q)
	n := int32(gr.cellsIn(q))
	p.points += int(n)
	for a := q; ; a = a.Parent() {
		p.marks.put(gr.index(a)).cells += n
		if a.Level == gr.g.K {
			return
		}
	}
}

// cover returns the entry of the smallest quad holding q (q itself
// included) that holds frontier cells of p, and whether it is q; nil when
// none does. Frontier quads are disjoint and an entry counts the cells of
// the frontier quads inside its quad, so where that quad is not q, q lies
// in one of p's frontier quads exactly when it is one (no frontier quad
// holds a quad that holds frontier cells of another, and one between q and
// it would hold cells itself). The walk stops there: a few hash lookups
// near the frontier, where walking every ancestor to the top cost K−l.
func (gr *Grower) cover(p *player, q Quad) (*mark, bool) {
	for a := q; ; a = a.Parent() {
		if e := p.marks.get(gr.index(a)); e != nil && e.cells > 0 {
			return e, a == q
		}
		if a.Level == gr.g.K {
			return nil, false
		}
	}
}

// inside reports whether q lies in one of p's frontier quads (q or an
// ancestor is a member).
func (gr *Grower) inside(s *Scratch, p *player, q Quad) bool {
	e, _ := gr.cover(p, q)
	return e != nil && e.flags&markMember != 0
}

// overlaps reports whether quad q holds any cell of p's frontier.
func (gr *Grower) overlaps(s *Scratch, p *player, q Quad) bool {
	e, self := gr.cover(p, q)
	return e != nil && (self || e.flags&markMember != 0)
}

// covered reports whether every cell of q is in p's frontier: q lies in a
// frontier quad, or frontier quads inside it hold all its cells.
func (gr *Grower) covered(p *player, q Quad) bool {
	e, self := gr.cover(p, q)
	return e != nil && (e.flags&markMember != 0 || self && int(e.cells) == gr.cellsIn(q))
}

// neighbours appends q's 4 or 8 same-level neighbours inside the terrain.
func (gr *Grower) neighbours(dst []Quad, q Quad, n int) []Quad {
	cols, rows := gr.g.QuadsAcross(q.Level)
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if (dx == 0 && dy == 0) || (n == 4 && dx != 0 && dy != 0) {
				continue
			}
			x, y := q.X+dx, q.Y+dy
			if x >= 0 && y >= 0 && x < cols && y < rows {
				dst = append(dst, Quad{q.Level, x, y})
			}
		}
	}
	return dst
}

// push queues q for p unless it was queued before.
func (gr *Grower) push(s *Scratch, p *player, q Quad, order Order) {
	k := gr.index(q)
	e := p.marks.put(k)
	if e.flags&markQueued != 0 {
		return
	}
	e.flags |= markQueued
	it := qitem{q: q, seq: p.seq}
	if order == Ground {
		it.ground = gr.groundOf(k)
	}
	p.seq++
	p.queue = append(p.queue, it)
	if order == Ground {
		heapUp(p.queue, len(p.queue)-1)
	}
}

// pop takes the next quad of p's queue.
func (gr *Grower) pop(p *player, order Order) (Quad, bool) {
	if order == Ground {
		if len(p.queue) == 0 {
			return Quad{}, false
		}
		it := p.queue[0]
		last := len(p.queue) - 1
		p.queue[0] = p.queue[last]
		p.queue = p.queue[:last]
		heapDown(p.queue, 0)
		return it.q, true
	}
	if p.head == len(p.queue) {
		return Quad{}, false
	}
	p.head++
	return p.queue[p.head-1].q, true
}

func less(a, b qitem) bool { return a.ground < b.ground || (a.ground == b.ground && a.seq < b.seq) }

func heapUp(h []qitem, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func heapDown(h []qitem, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && less(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && less(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// step2 alternates between the players' queues until one is empty, then,
// with GrowLarger, grows the other without merging (step 3). It returns
// the quads considered, whether opt.MaxSteps stopped it, and ctx's error
// when ctx stopped it.
func (gr *Grower) step2(ctx context.Context, s *Scratch, opt Options) (steps int, truncated bool, err error) {
	limit := opt.MaxSteps
	switch {
	case limit == 0:
		limit = DefaultMaxSteps
	case limit < 0:
		limit = math.MaxInt
	}
	done := ctx.Done()
	stopped := func() error {
		select {
		case <-done:
			return fmt.Errorf("grow: stopped after %d quads: %w", steps, ctx.Err())
		default:
			return nil
		}
	}
	turn := 0
	for ; ; steps++ {
		if steps&31 == 31 {
			if err := stopped(); err != nil {
				return steps, false, err
			}
		}
		x, y := &s.p[turn], &s.p[1-turn]
		q, ok := gr.pop(x, opt.Order)
		if !ok {
			break // x's queue is empty: x can grow no more
		}
		if steps == limit {
			return steps, true, nil // q and the rest stay unconsidered
		}
		gr.consider(s, x, y, q, opt, true)
		turn = 1 - turn
	}
	if !opt.GrowLarger {
		return steps, false, nil
	}
	// Step 3: only the other player can still grow. Its PVS is no longer
	// needed (nothing will be checked against it), so it is not merged;
	// the stopped player's PVS and region stay exact.
	x, y := &s.p[1-turn], &s.p[turn]
	for ; ; steps++ {
		if steps&31 == 31 {
			if err := stopped(); err != nil {
				return steps, false, err
			}
		}
		q, ok := gr.pop(x, opt.Order)
		if !ok {
			return steps, false, nil
		}
		if steps == limit {
			return steps, true, nil
		}
		gr.consider(s, x, y, q, opt, false)
	}
}

// consider decides quad q for player x against the other player y: it
// joins x's frontier when hidden both ways, is split into its children
// adjacent to x's frontier when undecided, and is dropped when visible.
func (gr *Grower) consider(s *Scratch, x, y *player, q Quad, opt Options, merge bool) {
	if gr.covered(x, q) {
		return // already in x's frontier
	}
	split := func() {
		if q.Level == 0 || opt.Method == Simple {
			return
		}
		for k := range 4 {
			c := Quad{q.Level - 1, 2*q.X + k&1, 2*q.Y + k>>1}
			if gr.cellsIn(c) == 0 || gr.inside(s, y, c) || !gr.adjacent(s, x, c, opt.Neighbours) {
				continue
			}
			gr.push(s, x, c, opt.Order)
		}
	}
	if gr.overlaps(s, y, q) || gr.overlaps(s, x, q) {
		split() // partly the other's or partly ours already
		return
	}
	var st quadpvs.Status
	if opt.Merge == quadpvs.Lossless {
		st = y.union.QuadStatus(q.Level, q.X, q.Y)
	} else {
		st = y.acc.QuadStatus(gr.g, q.Level, q.X, q.Y)
	}
	switch st {
	case quadpvs.Hidden:
		s.lookups++
		t := gr.pvs(q)
		var seen bool
		seen, s.stack = t.AnyVisible(gr.g, func(l, qx, qy int) bool { return gr.overlaps(s, y, Quad{l, qx, qy}) }, s.stack)
		if seen {
			split()
			return
		}
		gr.insert(s, x, q)
		switch {
		case !merge:
		case opt.Merge == quadpvs.Lossless:
			x.union.Add(&t)
		default:
			s.m.MergeInto(&x.acc, &x.spare, &t, opt.Merge)
		}
		gr.pushNeighbours(s, x, q, opt)
	case quadpvs.Unknown:
		split()
	}
}

// pushNeighbours queues q's neighbours for p.
func (gr *Grower) pushNeighbours(s *Scratch, p *player, q Quad, opt Options) {
	s.nb = gr.neighbours(s.nb[:0], q, opt.Neighbours)
	for _, n := range s.nb {
		gr.push(s, p, n, opt.Order)
	}
}

// adjacent reports whether quad c touches p's frontier: one of its
// same-level neighbours holds a frontier cell.
func (gr *Grower) adjacent(s *Scratch, p *player, c Quad, n int) bool {
	var buf [8]Quad
	for _, nb := range gr.neighbours(buf[:0], c, n) {
		if gr.overlaps(s, p, nb) {
			return true
		}
	}
	return false
}

// result copies p's frontier into f, sorted in Morton order for Contains.
func (gr *Grower) result(p *player, f *Frontier) {
	f.Quads = append(f.Quads[:0], p.quads...)
	slices.SortFunc(f.Quads, func(a, b Quad) int {
		ma, mb := quadpvs.MortonCode(a.Col(), a.Row()), quadpvs.MortonCode(b.Col(), b.Row())
		switch {
		case ma < mb:
			return -1
		case ma > mb:
			return 1
		}
		return 0
	})
	f.morton = f.morton[:0]
	for _, q := range f.Quads {
		f.morton = append(f.morton, quadpvs.MortonCode(q.Col(), q.Row()))
	}
	f.Points = p.points
}
