package heightmap

// Nodata policy.
//
// Visibility: a nodata cell (an SRTM void, a LiDAR gap) gets an elevation so
// that it occludes plausibly, like the terrain around it, rather than acting
// as a pit (which would reveal what lies behind it) or a wall. FillNodata
// fills voids from the outside in: in rings ordered by 8-neighbour distance to
// the nearest valid cell, each cell takes the mean of its already-known
// 8-neighbours. The fill is deterministic and linear in the cells.
//
// Frontiers: nodata cells stay marked in Grid.Nodata; they are not standable
// points, so they can be neither a player's position nor a frontier point.

// FillNodata replaces the elevation of every cell marked in g.Nodata as
// documented above. It does nothing when g has no nodata cells, and leaves
// g.Elev unchanged when every cell is nodata.
func FillNodata(g *Grid) {
	if g.NodataCount == 0 || g.NodataCount == len(g.Elev) {
		return
	}
	w, h := g.Width, g.Height
	// ring[i]: 0 for known cells, k ≥ 1 for a void cell filled in ring k,
	// -1 for a void cell not reached yet.
	ring := make([]int32, len(g.Elev))
	var cur []int32
	for i := range ring {
		if g.Nodata[i] {
			ring[i] = -1
		}
	}
	neighbours := func(i int, f func(j int)) {
		c, r := i%w, i/w
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				cc, rr := c+dc, r+dr
				if (dc != 0 || dr != 0) && cc >= 0 && rr >= 0 && cc < w && rr < h {
					f(rr*w + cc)
				}
			}
		}
	}
	for i := range ring {
		if ring[i] != -1 {
			continue
		}
		known := false
		neighbours(i, func(j int) { known = known || ring[j] == 0 })
		if known {
			ring[i] = 1
			cur = append(cur, int32(i))
		}
	}
	for k := int32(1); len(cur) > 0; k++ {
		var next []int32
		for _, i := range cur {
			sum, n := 0.0, 0
			neighbours(int(i), func(j int) {
				switch {
				case ring[j] >= 0 && ring[j] < k:
					sum += float64(g.Elev[j])
					n++
				case ring[j] == -1:
					ring[j] = k + 1
					next = append(next, int32(j))
				}
			})
			g.Elev[i] = float32(sum / float64(n))
		}
		cur = next
	}
}
