package sim

import (
	"math/bits"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
)

// VONCounts break the Voronoi overlay's traffic down (scheme VON, Hu &
// Liao): each node keeps links to its AOI neighbours (within the AOI
// radius) and its enclosing neighbours (Voronoi regions sharing an edge
// with its own, whatever the distance, which keep the overlay connected),
// sends its position to every linked node each tick, and learns of a new
// neighbour from a boundary neighbour's notification, one packet, after
// which the link carries updates from the next tick on. The Voronoi diagram
// is the whole one of the bots' positions in metres (GDAL's Delaunay
// triangulation), the view every node's local diagram converges to.
type VONCounts struct {
	Updates       int64 `json:"updates"`       // position updates along known links
	Notifications int64 `json:"notifications"` // new links, each announced once
	// LinksMean, LinksP95 and LinksMax are the links per node (its load)
	// over nodes and ticks; Enclosing the share of links that are
	// enclosing neighbours beyond the AOI radius.
	LinksMean float64 `json:"links_per_node_mean"`
	LinksP95  float64 `json:"links_per_node_p95"`
	LinksMax  int     `json:"links_per_node_max"`
	Enclosing float64 `json:"enclosing_share"`
	// Seen are the (tick, ordered pair) where the receiver sees the sender
	// by the uncompressed PVS; Recall the share of them delivered.
	Seen   int64   `json:"seen"`
	Recall float64 `json:"recall"`
	// Degenerate counts ticks GDAL could not triangulate (all positions on
	// one line), when only AOI links count.
	Degenerate int64 `json:"degenerate_ticks"`
}

// von runs the Voronoi overlay over the paths with the run's AOI radius
// (Result.AOIRadiusM), fills a's packets per tick and returns its row
// (Missed: seen pair-ticks not delivered, beyond every link or on a link
// not yet known).
func (x *run) von(a *account) (*Row, error) {
	o, paths, radiusM, w, r := x.o, x.paths, x.r.AOIRadiusM, x.w, x.r
	packets, m, la := a.packets, a.m, a.la
	n, T := paths.Bots, paths.Ticks
	words := (n*n + 63) / 64
	cur, known := make([]uint64, words), make([]uint64, words)
	bit := func(b []uint64, i, j int) bool { k := i*n + j; return b[k>>6]>>(k&63)&1 != 0 }
	set := func(b []uint64, i, j int) {
		for _, k := range [2]int{i*n + j, j*n + i} {
			b[k>>6] |= 1 << (k & 63)
		}
	}
	hb, ub, cb := int64(w.HeaderB), int64(w.UpdateB), int64(w.CellB)
	row := &Row{Scheme: VON}
	c := &r.VON
	var (
		vd      voronoi
		degHist = make([]int64, n) // nodes·ticks by links
		far     int64              // enclosing links beyond the radius, summed over ticks
		all     int64              // all links, summed over ticks
		total   int64              // known links per node, summed over nodes and ticks
	)
	r2 := radiusM * radiusM
	for tk := range T {
		// The links this tick: AOI neighbours, then enclosing neighbours.
		clear(cur)
		for i := range n {
			for j := i + 1; j < n; j++ {
				if o.dist2(tk, i, j) <= r2 {
					set(cur, i, j)
				}
			}
		}
		if !vd.edges(o, paths, tk, func(i, j int32) {
			if !bit(cur, int(i), int(j)) {
				set(cur, int(i), int(j))
				far++
			}
		}) {
			c.Degenerate++
		}
		for _, v := range cur {
			all += int64(bits.OnesCount64(v))
		}
		if tk == 0 {
			copy(known, cur) // joining: every node starts with its links
		}
		var tick int64
		for i := range n {
			deg := 0
			for j := range n {
				if i == j || !bit(known, i, j) {
					continue
				}
				deg++
				tick++
				m.up[i] += hb + ub
				m.down[j] += hb + ub
			}
			degHist[deg]++
			total += int64(deg)
		}
		c.Updates += tick
		// New links: a boundary neighbour tells the node that learns.
		for i := range n {
			for j := i + 1; j < n; j++ {
				if bit(cur, i, j) && !bit(known, i, j) {
					c.Notifications++
					tick++
					m.up[j] += hb + cb
					m.down[i] += hb + cb
				}
			}
		}
		packets[tk] = tick
		m.tick(0, 0)
		la.tick(tk, nil, func(i, j int) bool { return bit(known, i, j) }, o)
		for i := range n {
			for j := range n {
				if i != j && o.seesAt(tk, i, j) {
					c.Seen++
					if !bit(known, i, j) {
						row.Missed++
					}
				}
			}
		}
		known, cur = cur, known
	}
	if c.Seen > 0 {
		c.Recall = 1 - float64(row.Missed)/float64(c.Seen)
	}
	if all > 0 {
		c.Enclosing = float64(2*far) / float64(all)
	}
	samples := int64(n) * int64(T)
	c.LinksMean = float64(total) / float64(max(1, samples))
	var below int64
	for deg, k := range degHist {
		if k == 0 {
			continue
		}
		if below <= samples*95/100 && below+k > samples*95/100 {
			c.LinksP95 = float64(deg)
		}
		below += k
		c.LinksMax = deg
	}
	return row, nil
}

// voronoi finds enclosing neighbours: bots whose Voronoi regions share an
// edge (the Delaunay triangulation of their distinct positions in metres,
// GDAL's) and bots on one position. Its buffers are reused.
type voronoi struct {
	xs, ys  []float64
	at      map[[2]float64]int32 // a position's index among the distinct ones
	members [][]int32            // the bots at each distinct position
	tris    [][3]int32
}

// edges calls link(i, j) for every pair of enclosing neighbours at tick
// tk, i and j bot indices (a pair may come more than once). It reports
// false when GDAL could not triangulate (all positions on one line): then
// only bots on one position and the pair of two distinct positions are
// linked.
func (v *voronoi) edges(o *oracle, paths *bots.Paths, tk int, link func(i, j int32)) bool {
	n := paths.Bots
	if v.at == nil {
		v.at = map[[2]float64]int32{}
	}
	v.xs, v.ys = v.xs[:0], v.ys[:0]
	for k := range v.members {
		v.members[k] = v.members[k][:0]
	}
	clear(v.at)
	for b := range n {
		p := paths.Pos[tk*n+b]
		key := [2]float64{float64(p[0]) * o.dx, float64(p[1]) * o.dy}
		k, ok := v.at[key]
		if !ok {
			k = int32(len(v.xs))
			v.at[key] = k
			v.xs, v.ys = append(v.xs, key[0]), append(v.ys, key[1])
			if int(k) == len(v.members) {
				v.members = append(v.members, nil)
			}
		}
		v.members[k] = append(v.members[k], int32(b))
	}
	pairs := func(a, b int32) {
		for _, i := range v.members[a] {
			for _, j := range v.members[b] {
				link(i, j)
			}
		}
	}
	for k := range v.xs {
		m := v.members[k]
		for x := range m {
			for _, j := range m[x+1:] {
				link(m[x], j)
			}
		}
	}
	switch {
	case len(v.xs) == 2:
		pairs(0, 1)
	case len(v.xs) >= 3:
		var err error
		if v.tris, err = gdal.Delaunay(v.xs, v.ys, v.tris[:0]); err != nil {
			return false
		}
		for _, t := range v.tris {
			pairs(t[0], t[1])
			pairs(t[1], t[2])
			pairs(t[2], t[0])
		}
	}
	return true
}
