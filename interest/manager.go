// Package interest is frontier-based interest management for N players on
// one baked store (thesis §1 and §5.2; Steed & Angus §5–6): each tick it
// takes the players' cells and says which pairs must exchange updates. A
// pair that is mutually hidden holds a frontier set (grow, §3.5) and
// exchanges nothing while both players stay inside their sides; when one
// leaves, the two exchange positions once and a new frontier is grown, or,
// when they now see each other, they exchange updates every tick until they
// are mutually hidden again.
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
	"sync"
	"sync/atomic"
	"time"

	"frontiersets/grow"
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
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Exchange is one pair that exchanges updates (one packet each way) in a
// tick; I < J index the players given to Tick.
type Exchange struct {
	I, J   int32
	Reason Reason
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
}

// ErrPlayers reports a Tick with the wrong number of players.
var ErrPlayers = errors.New("interest: wrong number of players")

const (
	stNone uint8 = iota
	stVisible
	stFrontier
)

// pair is the state of players i < j; res's A side is i's.
type pair struct {
	state uint8
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
	moved   []bool
	started bool
	jobs    []job
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
	if opt.Workers < 0 || opt.Predict < 0 {
		return nil, fmt.Errorf("interest: %d workers and %d ticks of prediction, want ≥ 0", opt.Workers, opt.Predict)
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
		moved:   make([]bool, players),
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
// that must exchange updates, in order of (I, J). players[k] is player k;
// len(players) must be Players(); players on one cell see each other.
// Errors: ErrPlayers, and grow.ErrOutside or grow.ErrNodata naming the
// player; after an error the Manager must not be used again.
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
		c := [2]int{pl.Col, pl.Row}
		if pl.Col < 0 || pl.Row < 0 || pl.Col >= g.Width || pl.Row >= g.Height {
			return nil, fmt.Errorf("player %d: %w: (%d,%d) is not in the %d×%d grid", k, grow.ErrOutside, pl.Col, pl.Row, g.Width, g.Height)
		}
		pr := c
		if m.opt.Predict > 0 {
			f := float64(m.opt.Predict)
			pr = [2]int{
				min(max(int(math.Round(float64(pl.Col)+pl.FCol+pl.VCol*f)), 0), g.Width-1),
				min(max(int(math.Round(float64(pl.Row)+pl.FRow+pl.VRow*f)), 0), g.Height-1),
			}
		}
		m.moved[k] = !m.started || c != m.cells[k] || pr != m.proj[k]
		m.cells[k], m.proj[k] = c, pr
	}
	m.started = true
	r := &m.res
	r.Exchanges, r.Lifetimes = r.Exchanges[:0], r.Lifetimes[:0]
	r.Queries, r.QueryTime, r.MaxQuery = 0, 0, 0
	m.jobs = m.jobs[:0]
	for i := 0; i < m.n; i++ {
		base := m.index(i, i+1) - (i + 1)
		for j := i + 1; j < m.n; j++ {
			p := &m.pairs[base+j]
			if !m.moved[i] && !m.moved[j] {
				if p.state == stVisible {
					r.Exchanges = append(r.Exchanges, Exchange{int32(i), int32(j), Visible})
				}
				continue
			}
			reason := Start
			switch p.state {
			case stVisible:
				reason = Visible
			case stFrontier:
				a, b := m.cells[i], m.cells[j]
				if !p.res.A.Contains(a[0], a[1]) || !p.res.B.Contains(b[0], b[1]) {
					reason = Left
				} else if pa, pb := m.proj[i], m.proj[j]; m.opt.Predict > 0 &&
					(!p.res.A.Contains(pa[0], pa[1]) || !p.res.B.Contains(pb[0], pb[1])) {
					reason = Predicted
				} else {
					continue // still valid
				}
				r.Lifetimes = append(r.Lifetimes, m.tick-p.since)
			}
			if err := m.renegotiate(base+j, i, j, reason); err != nil {
				return nil, err
			}
		}
	}
	if err := m.grow(); err != nil {
		return nil, err
	}
	m.tick++
	return r, nil
}

// renegotiate decides pair (i, j) from the players' cells: exchange as
// visible, or queue a frontier to grow.
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
		p.state = stVisible
		m.res.Exchanges = append(m.res.Exchanges, Exchange{int32(i), int32(j), Visible})
		return nil
	}
	if reason == Visible {
		reason = Start // a visible pair turned hidden: its first frontier
	}
	p.state = stFrontier
	p.since = m.tick
	m.res.Exchanges = append(m.res.Exchanges, Exchange{int32(i), int32(j), reason})
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

// grow runs the tick's queued frontier queries on the workers.
func (m *Manager) grow() error {
	if len(m.jobs) == 0 {
		return nil
	}
	w := min(len(m.scratch), len(m.jobs))
	if w <= 1 {
		for k := range m.jobs {
			m.run(&m.jobs[k], &m.scratch[0])
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for x := range w {
			wg.Go(func() {
				for {
					k := int(next.Add(1)) - 1
					if k >= len(m.jobs) {
						return
					}
					m.run(&m.jobs[k], &m.scratch[x])
				}
			})
		}
		wg.Wait()
	}
	r := &m.res
	for k := range m.jobs {
		jb := &m.jobs[k]
		if jb.err != nil {
			return fmt.Errorf("players %d and %d: %w", jb.i, jb.j, jb.err)
		}
		r.Queries += int(jb.queries)
		r.QueryTime += jb.took
		r.MaxQuery = max(r.MaxQuery, jb.slow)
	}
	return nil
}

// run grows one job's frontier into its pair; safe on distinct pairs
// concurrently.
func (m *Manager) run(jb *job, s *grow.Scratch) {
	p := &m.pairs[jb.p]
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
