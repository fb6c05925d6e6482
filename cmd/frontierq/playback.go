package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Bounds of a played-back simulation: it runs inside a request.
const (
	playbackMaxBots    = 32
	playbackMaxSeconds = 120
)

// playbackJSON is a simulation for the viewer to play back: bots on the
// store's terrain (package bots) under frontier-based interest management
// (interest.Manager, hierarchical/lossy, silent extension, one worker) and,
// on the same trajectories, under the joint frontier (interest.Joint, its
// defaults).
type playbackJSON struct {
	Bots    int     `json:"bots"`
	Ticks   int     `json:"ticks"`
	TickS   float64 `json:"tick_s"`
	SpeedMS float64 `json:"speed_m_s"`
	// Cells[t] lists tick t's bot cells: col0, row0, col1, row1, …
	Cells [][]int32 `json:"cells"`
	// Visible[t] lists the pairs i, j exchanging because visible;
	// Negotiated[t] those exchanging positions for a new frontier.
	Visible    [][]int32 `json:"visible"`
	Negotiated [][]int32 `json:"negotiated"`
	Packets    []int     `json:"packets"` // per tick, as the simulation counts FB
	NPP        int       `json:"npp_per_tick"`
	// Frontiers are bot 0's frontier sets with each other bot, recorded
	// whenever the manager grows or extends one: from tick Tick on, until
	// the next record for the same J.
	Frontiers []playbackFrontier `json:"frontiers"`
	// GQSides records each bot's side under the joint frontier whenever
	// it changes: tick, bot, col, row, size (in cells); a side holds from
	// its tick until the bot's next record. GQSends[t] lists the pairs i, j
	// exchanging updates (either way) and GQPackets[t] the packets, as the
	// simulation counts GQ.
	GQSides   [][5]int32 `json:"gq_sides"`
	GQSends   [][]int32  `json:"gq_sends"`
	GQPackets []int      `json:"gq_packets"`
}

type playbackFrontier struct {
	Tick int      `json:"tick"`
	J    int      `json:"j"`
	A    [][3]int `json:"a"` // bot 0's side: [col,row,size]
	B    [][3]int `json:"b"` // bot J's side
}

// playback answers GET /api/sim?bots=16&seconds=60&seed=1.
func (v *viewer) playback(r *http.Request) (string, []byte, error) {
	q := r.URL.Query()
	num := func(name string, def, lo, hi int) (int, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, &badRequest{fmt.Sprintf("--%s %q: want %d to %d", name, s, lo, hi)}
		}
		return n, nil
	}
	n, err := num("bots", 16, 2, playbackMaxBots)
	if err != nil {
		return "", nil, err
	}
	secs, err := num("seconds", 60, 1, playbackMaxSeconds)
	if err != nil {
		return "", nil, err
	}
	seed, err := num("seed", 1, 0, 1<<30)
	if err != nil {
		return "", nil, err
	}
	s := v.s
	o := bots.Defaults(s.DxM, s.DyM)
	o.Bots, o.Seed = n, uint64(seed)
	o.Ticks = int(float64(secs) / o.TickSeconds)
	paths, err := bots.Run(bots.Terrain{Width: s.Width, Height: s.Height, Elev: s.Elev, Nodata: s.Nodata, Dx: s.DxM, Dy: s.DyM}, o)
	if err != nil {
		return "", nil, &badRequest{err.Error()}
	}
	m, err := interest.New(v.gr, n, interest.Options{Grow: grow.Options{Merge: quadpvs.Lossy}, Workers: 1, Extend: true})
	if err != nil {
		return "", nil, err
	}
	jt, err := interest.NewJoint(v.gr, n, interest.JointOptions{})
	if err != nil {
		return "", nil, err
	}
	out := playbackJSON{Bots: n, Ticks: paths.Ticks, TickS: o.TickSeconds, SpeedMS: o.SpeedMS, NPP: n * (n - 1)}
	sides := make([]grow.Quad, n)
	players := make([]interest.Player, n)
	last := make([]*grow.Result, n) // bot 0's frontier with j last recorded
	size := make([]int, n)          // and its points then
	for tk := range paths.Ticks {
		if err := r.Context().Err(); err != nil {
			return "", nil, err // timed out or gone: free the slot
		}
		cells := make([]int32, 0, 2*n)
		for b := range n {
			k := tk*n + b
			c, vel, p := paths.Cells[k], paths.Vel[k], paths.Pos[k]
			players[b] = interest.Player{Col: int(c[0]), Row: int(c[1]), FCol: float64(p[0]) - float64(c[0]),
				FRow: float64(p[1]) - float64(c[1]), VCol: float64(vel[0]), VRow: float64(vel[1])}
			cells = append(cells, c[0], c[1])
		}
		res, err := m.Tick(players)
		if err != nil {
			return "", nil, fmt.Errorf("tick %d: %w", tk, err)
		}
		var vis, neg []int32
		packets := 0
		for _, e := range res.Exchanges {
			packets += e.Packets()
			if e.Reason == interest.Visible {
				vis = append(vis, e.I, e.J)
			} else {
				neg = append(neg, e.I, e.J)
			}
		}
		for j := 1; j < n; j++ {
			f, ok := m.Frontier(0, j)
			if !ok {
				last[j] = nil
				continue
			}
			if f != last[j] || f.A.Points+f.B.Points != size[j] {
				last[j], size[j] = f, f.A.Points+f.B.Points
				out.Frontiers = append(out.Frontiers, playbackFrontier{Tick: tk, J: j, A: quadsJSON(&f.A), B: quadsJSON(&f.B)})
			}
		}
		jr, err := jt.Tick(players)
		if err != nil {
			return "", nil, fmt.Errorf("tick %d: %w", tk, err)
		}
		var sends []int32
		for i := range n {
			if q := jt.Side(i); tk == 0 || q != sides[i] {
				sides[i] = q
				out.GQSides = append(out.GQSides, [5]int32{int32(tk), int32(i), int32(q.Col()), int32(q.Row()), int32(q.Size())})
			}
			for j := i + 1; j < n; j++ {
				if jt.Sends(i, j) || jt.Sends(j, i) {
					sends = append(sends, int32(i), int32(j))
				}
			}
		}
		out.GQSends = append(out.GQSends, sends)
		out.GQPackets = append(out.GQPackets, jr.Packets())
		out.Cells = append(out.Cells, cells)
		out.Visible = append(out.Visible, vis)
		out.Negotiated = append(out.Negotiated, neg)
		out.Packets = append(out.Packets, packets)
	}
	b, err := json.Marshal(out)
	return "application/json", b, err
}
