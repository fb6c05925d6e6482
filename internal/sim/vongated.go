package sim

import (
	"fmt"

	"github.com/frontiersets/frontiersets/interest"
)

// VGCounts break scheme VG's traffic down: the joint frontier without a
// coordinator, its discovery carried by a Voronoi overlay (Hu & Liao's
// VON, `003_*.txt`, with enclosing neighbours only, no AOI radius: the
// frontier, not a distance, says who needs whose updates).
//
// Every player knows every side. A player whose cell leaves its side
// chooses its new side and floods it over the overlay (a breadth-first
// tree from it: each other player receives it once, n−1 packets of a
// header and a cell), and both members of each pair decide it from the
// two sides as GQ's coordinator would: the same silent and open pairs, the
// same updates, announcements and flips, peer to peer. Exits of one tick
// are taken in player order, as the coordinator takes them (a serverless
// version must get that order from a tie rule). The overlay is kept up
// once a second: each player sends its position to each enclosing
// neighbour, the diagram is redrawn from those positions, and each new
// pair of neighbours is told by a boundary neighbour (one packet, as
// VON's); floods follow the last diagram drawn. Under delay a flood
// arrives after as many one-way delays as its depth (Depth*); the late
// counts assume the coordinator's round trip, so they are a lower bound.
type VGCounts struct {
	Updates       int64 `json:"updates"`
	Announcements int64 `json:"announcements"`
	Flips         int64 `json:"flips"`
	Exits         int64 `json:"exits"`
	Flooded       int64 `json:"flooded"`    // flood packets: n−1 per exit
	KeepAlives    int64 `json:"keepalives"` // overlay positions, once a second per enclosing neighbour
	Notifications int64 `json:"notifications"`
	// LinksMean is the enclosing neighbours per node, over nodes and
	// seconds; DepthMean and DepthMax the floods' depth in hops (their
	// players' mean and the deepest).
	LinksMean float64 `json:"links_per_node_mean"`
	DepthMean float64 `json:"flood_depth_mean"`
	DepthMax  int     `json:"flood_depth_max"`
	// Degenerate counts redraws GDAL could not triangulate (all positions
	// on one line), which keep the last diagram.
	Degenerate int64 `json:"degenerate_redraws"`
}

// vg runs scheme VG over the paths (VGCounts), fills a's packets per tick
// and returns its row.
func (x *run) vg(a *account) (*Row, error) {
	gr, o, paths, cfg, r := x.gr, x.o, x.paths, x.cfg, x.r
	packets, m, la := a.packets, a.m, a.la
	n, T := paths.Bots, paths.Ticks
	jt, err := interest.NewJoint(gr, n, jointOptions(cfg, o))
	if err != nil {
		return nil, err
	}
	w := x.w
	hb, ub, cb := int64(w.HeaderB), int64(w.UpdateB), int64(w.CellB)
	secTicks := ticksPerSecond(cfg)
	row := &Row{Scheme: VG}
	c := &r.VG
	var (
		vd            voronoi
		adj, prev     = make([][]int32, n), make([][]int32, n) // enclosing neighbours, from the last redraw and the one before
		seen          = make([]bool, n*n)                      // a pair listed in adj during a redraw
		old           = make([]bool, n*n)                      // the pairs of the redraw before
		players       = make([]interest.Player, n)
		depth         = make([]int32, n) // hops from the flood's source; −1: not reached
		queue         = make([]int32, 0, n)
		links, redraw int64
		depthSum      int64
	)
	for tk := range T {
		if tk%secTicks == 0 {
			// The overlay's second: positions to every enclosing neighbour,
			// then the new diagram and its new neighbours.
			for i := range n {
				for _, j := range adj[i] {
					c.KeepAlives++
					packets[tk]++
					m.up[i] += hb + ub
					m.down[j] += hb + ub
				}
			}
			adj, prev = prev, adj
			clear(seen)
			for i := range adj {
				adj[i] = adj[i][:0]
			}
			ok := vd.edges(o, paths, tk, func(i, j int32) {
				k := int(min(i, j))*n + int(max(i, j))
				if i == j || seen[k] {
					return
				}
				seen[k] = true
				adj[i], adj[j] = append(adj[i], j), append(adj[j], i)
			})
			if !ok {
				c.Degenerate++
				adj, prev = prev, adj
				clear(seen)
				for i := range adj {
					for _, j := range adj[i] {
						seen[int(min(int32(i), j))*n+int(max(int32(i), j))] = true
					}
				}
			}
			for k, s := range seen {
				if s && !old[k] && tk > 0 { // joining: every node starts with its links
					c.Notifications++
					packets[tk]++
					i, j := k/n, k%n
					m.up[j] += hb + cb
					m.down[i] += hb + cb
				}
			}
			copy(old, seen)
			for i := range adj {
				links += int64(len(adj[i]))
			}
			redraw++
		}
		res, err := jt.Tick(cellsAt(paths, tk, players))
		if err != nil {
			return nil, fmt.Errorf("%s, tick %d: %w", VG, tk, err)
		}
		peer := int64(res.Updates + res.Announcements + res.Flips)
		c.Updates += int64(res.Updates)
		c.Announcements += int64(res.Announcements)
		c.Flips += int64(res.Flips)
		for i := range n {
			up, down := res.Up[i], res.Down[i]-res.Answer[i]
			if res.Exited[i] {
				up -= hb + cb // no report to a coordinator
			}
			m.up[i] += up
			m.down[i] += down
		}
		// The floods: a breadth-first tree over the overlay from each
		// exiting player.
		for i := range n {
			if !res.Exited[i] {
				continue
			}
			c.Exits++
			for k := range depth {
				depth[k] = -1
			}
			depth[i] = 0
			queue = append(queue[:0], int32(i))
			for q := 0; q < len(queue); q++ {
				u := queue[q]
				for _, v := range adj[u] {
					if depth[v] >= 0 {
						continue
					}
					depth[v] = depth[u] + 1
					queue = append(queue, v)
					m.up[u] += hb + cb
					m.down[v] += hb + cb
					depthSum += int64(depth[v])
					c.DepthMax = max(c.DepthMax, int(depth[v]))
				}
			}
			if len(queue) < n {
				// The overlay is not connected (a degenerate first
				// diagram): the rest are told directly.
				for v := range n {
					if depth[v] < 0 {
						m.up[i] += hb + cb
						m.down[v] += hb + cb
						depthSum++
						c.DepthMax = max(c.DepthMax, 1)
					}
				}
			}
		}
		packets[tk] += peer + int64(res.Exits)*int64(n-1)
		m.tick(0, 0)
		la.tick(tk, func(i, j int) bool { return !jt.Silent(i, j) }, jt.Sends, o)
		row.Queries += int64(res.Exits)
		row.Missed += jointMissed(o, jt, tk, n)
		if cfg.Progress != nil {
			cfg.Progress(string(VG), tk+1, T)
		}
	}
	c.LinksMean = float64(links) / float64(max(1, redraw*int64(n)))
	c.Flooded = c.Exits * int64(n-1)
	c.DepthMean = float64(depthSum) / float64(max(1, c.Flooded))
	return row, nil
}
