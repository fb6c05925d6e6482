// Package interest is frontier-based interest management for N players on
// one baked store (thesis §1 and §5.2; Steed & Angus §5–6): each tick it
// takes the players' cells and says which pairs must exchange updates. A
// pair that is mutually hidden holds a frontier set (grow, §3.5) and
// exchanges nothing while both players stay inside their sides; when one
// leaves, the two exchange positions once and a new frontier is grown, or,
// when they now see each other, they exchange updates every tick until they
// are mutually hidden again.
//
// Joint (joint.go) is the grouped alternative: one side per player, valid
// against every other player at once, kept by a coordinator that handles
// only the players leaving their sides, so its state and work grow with N
// instead of N² frontier sets.
//
// The package also counts the packets of the schemes frontier sets are
// compared with (schemes.go): naive and perfect peer-to-peer, client-server
// with and without aggregation, and a distance-based area of interest.
//
// It does no I/O. A Manager belongs to one game and is not safe for
// concurrent use; within a Tick it grows frontiers on Options.Workers
// goroutines, each with its own grow.Scratch, sharing the Grower.
package interest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/frontiersets/frontiersets/grow"
)

// Options configure a Manager.
type Options struct {
	// Grow are the frontier queries' options (method, merge, queue…).
	Grow grow.Options
	// Workers is the number of goroutines growing a tick's frontiers; 0
	// means 1 (all queries on the caller's goroutine).
	Workers int
	// Predict, when > 0, renegotiates a frontier as soon as a player's cell
	// projected Predict ticks ahead from its velocity leaves its side (thesis
	// §5.2: start the next frontier before the player leaves), growing from
	// the projected cells and keeping that frontier when it also holds the
	// current cells. 0 renegotiates only when a player has left.
	Predict int
	// Extend keeps a frontier set when a player steps out of its side into
	// a cell hidden both ways from the other side (grow.Grower.Extend): the
	// cell joins the side and the frontier stays valid. One side per
	// frontier extends silently — the side of the player moving faster
	// when the frontier was grown (both know both velocities then), player
	// I on a tie. The other player knows that side only as grown, so its
	// own extensions could not be checked against the silent ones: when it
	// steps out, the pair renegotiates. (Announcing its step with one packet
	// instead was measured: on the urban terrain a walker then pays a packet
	// for each cell outside its side, more than the fresh, larger frontier a
	// renegotiation grows.)
	Extend bool
	// Budget, when > 0, bounds each tick's frontier work (the summed time
	// of its queries; thesis §5.2: amortise over frames): once a tick's
	// queries have taken Budget, the pairs still waiting exchange updates as
	// if visible (Reason Pending) and are served first in the next ticks, and
	// early renegotiations (Predict) wait with their frontier still valid.
	// The first query of a tick always runs. 0: no bound.
	Budget time.Duration
}

// Player is one player's state at a tick: its cell on the store's grid and,
// used only with Options.Predict, its offset from the cell's centre and its
// velocity, in cells (per tick).
type Player struct {
	Col, Row   int
	FCol, FRow float64 // position within the cell, −0.5 to 0.5 cells from its centre
	VCol, VRow float64 // cells per tick
}

// Reason says why a pair exchanges updates in a tick.
type Reason uint8

const (
	Visible   Reason = iota + 1 // the pair is not mutually hidden: updates every tick
	Start                       // the pair held no frontier (first tick, or it was visible): positions exchanged, frontier grown
	Left                        // a player left its side: positions exchanged, frontier regrown
	Predicted                   // a player is about to leave (Options.Predict): frontier regrown early
	Pending                     // the pair's frontier waits for the work budget (Options.Budget): updates meanwhile
)

func (r Reason) String() string {
	switch r {
	case Visible:
		return "visible"
	case Start:
		return "start"
	case Left:
		return "left"
	case Predicted:
		return "predicted"
	case Pending:
		return "pending"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Exchange is one pair that communicates in a tick; I < J index the
// players given to Tick. Dir says who sends to whom: IToJ, JToI or both.
// A visible pair sends only where the receiver may see the sender (by the
// store's per-point PVS, grow.Grower.MaySee); when that changes, the
// members learn it as pairTick's protocol says, and Stale counts the
// updates sent by a member that could not yet know it had stopped. Every
// other reason is a position exchange, both ways.
type Exchange struct {
	I, J   int32
	Reason Reason
	Dir    Dir
	// Stale are the directions that carry one more update though Dir
	// does not: a visible pair's member that stops sending because the
	// other moved cannot know it before its tick's update (pairTick).
	Stale Dir
}

// Dir is the direction of an Exchange's packets: a bit set.
type Dir uint8

const (
	IToJ Dir = 1 << iota // player I sends to player J
	JToI                 // player J sends to player I
	Both = IToJ | JToI
)

// Packets returns the number of packets the exchange costs: an update per
// direction of Dir and of Stale (1 to 3).
func (e Exchange) Packets() int {
	return int(e.Dir&IToJ) + int(e.Dir&JToI>>1) + int(e.Stale&IToJ) + int(e.Stale&JToI>>1)
}

// TickResult is what one Tick decided. Its slices are reused by the next
// Tick.
type TickResult struct {
	Exchanges []Exchange
	// Queries is the number of frontiers grown, QueryTime their summed
	// running time (one core's work) and MaxQuery the longest.
	Queries   int
	QueryTime time.Duration
	MaxQuery  time.Duration
	// Lifetimes holds, for each frontier replaced this tick, how many ticks
	// it was valid.
	Lifetimes []int32
	// Extensions counts the silent extensions (Options.Extend); their time
	// is in QueryTime.
	Extensions int
}

// ErrPlayers reports a Tick with the wrong number of players.
var ErrPlayers = errors.New("interest: wrong number of players")

const (
	stNone uint8 = iota
	stVisible
	stFrontier
	stPending // hidden, its frontier waiting for the budget
)

// pair is the state of players i < j; res's A side is i's.
type pair struct {
	state uint8
	ext   uint8 // the side that may extend (Options.Extend): 0 for i, 1 for j
	dir   Dir   // while visible: who may see whom
	since int32 // tick the frontier was grown
	res   grow.Result
}

// job is one frontier to grow in a tick.
type job struct {
	p          int32 // pair index
	i, j       int32
	a, b       [2]int // cells to grow from
	fallback   bool   // predicted: regrow from the current cells when a or b's frontier misses them
	cur        [2][2]int
	reason     Reason
	err        error
	done       bool
	queries    int32
	took, slow time.Duration
}

// Manager keeps the interest state of N players on one store.
type Manager struct {
	gr      *grow.Grower
	opt     Options
	n       int
	tick    int32
	pairs   []pair // i < j at i·n − i(i+1)/2 + j − i − 1
	cells   [][2]int
	proj    [][2]int
	speed2  []float64
	moved   []bool // cell or projected cell changed (the pair is re-decided)
	stepped []bool // cell changed
	started bool
	jobs    []job
	waiting []job // pairs in stPending, oldest first
	scratch []grow.Scratch
	res     TickResult
}

// New returns a Manager for players players on gr's store. Errors:
// grow.ErrOptions for invalid query options, and an error for players < 2,
// Workers < 0 or Predict < 0.
func New(gr *grow.Grower, players int, opt Options) (*Manager, error) {
	if players < 2 || players > 1<<15 {
		return nil, fmt.Errorf("interest: %d players, want 2 to 32768", players)
	}
	if opt.Workers < 0 || opt.Predict < 0 || opt.Budget < 0 {
		return nil, fmt.Errorf("interest: %d workers, %d ticks of prediction, budget %v: want ≥ 0", opt.Workers, opt.Predict, opt.Budget)
	}
	if n := opt.Grow.Neighbours; n != 0 && n != 4 && n != 8 {
		return nil, fmt.Errorf("%w: %d neighbours, want 4 or 8", grow.ErrOptions, n)
	}
	w := max(opt.Workers, 1)
	return &Manager{
		gr: gr, opt: opt, n: players,
		pairs:   make([]pair, players*(players-1)/2),
		cells:   make([][2]int, players),
		proj:    make([][2]int, players),
		speed2:  make([]float64, players),
		moved:   make([]bool, players),
		stepped: make([]bool, players),
		scratch: make([]grow.Scratch, w),
	}, nil
}

// Players returns the number of players.
func (m *Manager) Players() int { return m.n }

func (m *Manager) index(i, j int) int { return i*m.n - i*(i+1)/2 + j - i - 1 }

// Frontier returns the frontier set pair i < j holds (A is i's side), or
// false when the pair holds none (it is mutually visible or new). The result
// is valid until the next Tick.
func (m *Manager) Frontier(i, j int) (*grow.Result, bool) {
	if i > j {
		i, j = j, i
	}
	if i < 0 || j >= m.n || i == j {
		return nil, false
	}
	p := &m.pairs[m.index(i, j)]
	return &p.res, p.state == stFrontier
}

// Tick moves the players to their cells for this tick and returns the pairs
// that must exchange updates, sorted by (I, J). players[k] is player k;
// len(players) must be Players(); players on one cell see each other.
// Errors: ErrPlayers, and grow.ErrOutside or grow.ErrNodata naming the
// player (a player on a nodata cell whatever the others do), all checked
// before anything changes, so that the Manager is as it was; after any
// other error (a fault reading the store) it must not be used again.
//
// A pair's state only changes when one of its players changes cell (or, with
// Predict, projected cell), so a tick costs O(N²) flag checks plus the work
// of the pairs of the players that moved.
func (m *Manager) Tick(players []Player) (*TickResult, error) {
	if len(players) != m.n {
		return nil, fmt.Errorf("%w: %d, the manager has %d", ErrPlayers, len(players), m.n)
	}
	g := m.gr.Geometry()
	for k, pl := range players {
		if err := m.gr.CheckCell([2]int{pl.Col, pl.Row}); err != nil {
			return nil, fmt.Errorf("player %d: %w", k, err)
		}
	}
	for k, pl := range players {
		c := [2]int{pl.Col, pl.Row}
		pr := c
		if m.opt.Predict > 0 {
			f := float64(m.opt.Predict)
			pr = [2]int{
				min(max(int(math.Round(float64(pl.Col)+pl.FCol+pl.VCol*f)), 0), g.Width-1),
				min(max(int(math.Round(float64(pl.Row)+pl.FRow+pl.VRow*f)), 0), g.Height-1),
			}
		}
		m.stepped[k] = !m.started || c != m.cells[k]
		m.moved[k] = m.stepped[k] || pr != m.proj[k]
		m.cells[k], m.proj[k] = c, pr
		m.speed2[k] = pl.VCol*pl.VCol + pl.VRow*pl.VRow
	}
	m.started = true
	r := &m.res
	r.Exchanges, r.Lifetimes = r.Exchanges[:0], r.Lifetimes[:0]
	r.Queries, r.QueryTime, r.MaxQuery, r.Extensions = 0, 0, 0, 0
	m.jobs = m.jobs[:0]
	for i := 0; i < m.n; i++ {
		base := m.index(i, i+1) - (i + 1)
		for j := i + 1; j < m.n; j++ {
			p := &m.pairs[base+j]
			if !m.moved[i] && !m.moved[j] {
				if p.state == stVisible { // (a pending pair is settled by grow)
					r.Exchanges = append(r.Exchanges, Exchange{I: int32(i), J: int32(j), Reason: Visible, Dir: p.dir})
				}
				continue
			}
			reason := Start
			switch p.state {
			case stVisible:
				reason = Visible
			case stPending:
				reason = Pending
			case stFrontier:
				in := [2]bool{p.res.A.Contains(m.cells[i][0], m.cells[i][1]), p.res.B.Contains(m.cells[j][0], m.cells[j][1])}
				if !in[0] || !in[1] {
					reason = Left
				} else if pa, pb := m.proj[i], m.proj[j]; m.opt.Predict > 0 {
					in = [2]bool{p.res.A.Contains(pa[0], pa[1]), p.res.B.Contains(pb[0], pb[1])}
					if !in[0] || !in[1] {
						reason = Predicted
					}
				}
				if reason == Start {
					continue // still valid
				}
				if out := int(p.ext); m.opt.Extend && !in[out] && in[1-out] {
					// Only the side that may extend is (or will be) out: try
					// to take its player's cell in silently.
					c := [2][2]int{m.cells[i], m.cells[j]}[out]
					if reason == Predicted {
						c = [2][2]int{m.proj[i], m.proj[j]}[out]
					}
					start := time.Now()
					ok, err := m.gr.Extend(&p.res, out, c)
					r.QueryTime += time.Since(start)
					if err != nil && reason == Left {
						return nil, fmt.Errorf("players %d and %d: %w", i, j, err)
					}
					if ok { // (a projected cell may be off the terrain: no extension)
						r.Extensions++
						continue
					}
				}
				if reason == Left {
					r.Lifetimes = append(r.Lifetimes, m.tick-p.since)
				}
			}
			if err := m.renegotiate(base+j, i, j, reason); err != nil {
				return nil, err
			}
		}
	}
	if err := m.grow(); err != nil {
		return nil, err
	}
	slices.SortFunc(r.Exchanges, func(a, b Exchange) int {
		if a.I != b.I {
			return int(a.I - b.I)
		}
		return int(a.J - b.J)
	})
	m.tick++
	return r, nil
}

// renegotiate decides pair (i, j) from the players' cells: exchange as
// visible, or queue a frontier to grow (a pending pair is already queued).
func (m *Manager) renegotiate(pi, i, j int, reason Reason) error {
	p := &m.pairs[pi]
	a, b := m.cells[i], m.cells[j]
	vis := a == b // players on one cell see each other
	if !vis {
		var err error
		if vis, err = m.gr.MutuallyVisible(a, b); err != nil {
			return fmt.Errorf("players %d and %d: %w", i, j, err)
		}
	}
	if vis {
		old, was := p.dir, p.state == stVisible
		p.state, p.dir = stVisible, Both
		if a != b {
			ij, err := m.gr.MaySee(b, a) // j may see i: i sends to j
			if err != nil {
				return fmt.Errorf("players %d and %d: %w", i, j, err)
			}
			ji, err := m.gr.MaySee(a, b)
			if err != nil {
				return fmt.Errorf("players %d and %d: %w", i, j, err)
			}
			p.dir = 0
			if ij {
				p.dir |= IToJ
			}
			if ji {
				p.dir |= JToI
			}
		}
		var stale Dir
		if was {
			upd, _ := pairTick(old, p.dir, m.stepped[i], m.stepped[j])
			for x := range 2 {
				if upd[x] > int(p.dir>>x&1) {
					stale |= IToJ << x
				}
			}
		}
		m.res.Exchanges = append(m.res.Exchanges, Exchange{I: int32(i), J: int32(j), Reason: Visible, Dir: p.dir, Stale: stale})
		return nil
	}
	if reason == Pending {
		return nil // waits in m.waiting
	}
	if reason == Visible {
		reason = Start // a visible pair turned hidden: its first frontier
	}
	if reason != Predicted {
		p.state = stNone // no valid frontier until grown
	}
	jb := job{p: int32(pi), i: int32(i), j: int32(j), a: a, b: b, reason: reason}
	if reason == Predicted {
		pa, pb := m.proj[i], m.proj[j]
		if pa != pb && (pa != a || pb != b) {
			jb.a, jb.b, jb.cur, jb.fallback = pa, pb, [2][2]int{a, b}, true
		}
	}
	m.jobs = append(m.jobs, jb)
	return nil
}

// grow runs the tick's frontier queries on the workers, the pairs waiting
// from earlier ticks first, within the budget, and settles each pair.
func (m *Manager) grow() error {
	// Waiting pairs still hidden go first, with their players' cells now.
	k := 0
	for _, w := range m.waiting {
		if m.pairs[w.p].state == stPending {
			w.a, w.b = m.cells[w.i], m.cells[w.j]
			w.done, w.queries, w.took, w.slow = false, 0, 0, 0
			m.waiting[k] = w
			k++
		}
	}
	m.jobs = append(m.waiting[:k], m.jobs...)
	if len(m.jobs) == 0 {
		return nil
	}
	var spent atomic.Int64 // nanoseconds of the tick's queries
	budget := m.opt.Budget.Nanoseconds()
	var next atomic.Int64
	work := func(s *grow.Scratch) {
		for {
			k := int(next.Add(1)) - 1
			if k >= len(m.jobs) || (k > 0 && budget > 0 && spent.Load() >= budget) {
				return
			}
			m.run(&m.jobs[k], s)
			spent.Add(m.jobs[k].took.Nanoseconds())
		}
	}
	if w := min(len(m.scratch), len(m.jobs)); w <= 1 {
		work(&m.scratch[0])
	} else {
		var wg sync.WaitGroup
		for x := range w {
			wg.Go(func() { work(&m.scratch[x]) })
		}
		wg.Wait()
	}
	r := &m.res
	var waiting []job
	for k := range m.jobs {
		jb := &m.jobs[k]
		p := &m.pairs[jb.p]
		if jb.err != nil {
			return fmt.Errorf("players %d and %d: %w", jb.i, jb.j, jb.err)
		}
		if !jb.done {
			if jb.reason != Predicted { // a predicted pair keeps its valid frontier
				p.state = stPending
				r.Exchanges = append(r.Exchanges, Exchange{I: jb.i, J: jb.j, Reason: Pending, Dir: Both})
				waiting = append(waiting, *jb)
			}
			continue
		}
		if jb.reason == Predicted {
			r.Lifetimes = append(r.Lifetimes, m.tick-p.since)
		}
		reason := jb.reason
		if reason == Pending {
			reason = Start
		}
		p.state, p.since = stFrontier, m.tick
		p.ext = 0
		if m.speed2[jb.j] > m.speed2[jb.i] {
			p.ext = 1
		}
		r.Exchanges = append(r.Exchanges, Exchange{I: jb.i, J: jb.j, Reason: reason, Dir: Both})
		r.Queries += int(jb.queries)
		r.QueryTime += jb.took
		r.MaxQuery = max(r.MaxQuery, jb.slow)
	}
	m.waiting = waiting
	return nil
}

// run grows one job's frontier into its pair; safe on distinct pairs
// concurrently.
func (m *Manager) run(jb *job, s *grow.Scratch) {
	p := &m.pairs[jb.p]
	jb.done = true
	query := func(a, b [2]int) error {
		err := m.gr.Grow(a, b, m.opt.Grow, s, &p.res)
		jb.queries++
		jb.took += p.res.Elapsed
		jb.slow = max(jb.slow, p.res.Elapsed)
		return err
	}
	if jb.fallback {
		err := query(jb.a, jb.b)
		c := jb.cur
		if err == nil && !p.res.MutuallyVisible && p.res.A.Contains(c[0][0], c[0][1]) && p.res.B.Contains(c[1][0], c[1][1]) {
			return // the frontier grown ahead holds the players now
		}
		jb.a, jb.b = c[0], c[1]
	}
	if jb.err = query(jb.a, jb.b); jb.err == nil && p.res.MutuallyVisible {
		// MutuallyVisible said hidden a moment ago on the same store.
		panic("interest: Grow finds a mutually hidden pair visible")
	}
}
