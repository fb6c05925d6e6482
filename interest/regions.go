package interest

import (
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// regionMemo remembers which pairs of region quads are disjoint and
// mutually hidden (grow.Grower.QuadsHidden), the test of a region-pair
// frontier: two bits per ordered pair of quads of one level in a table
// filled as pairs come up, and a map for pairs of other levels (regions
// grown to hold a ring).
type regionMemo struct {
	gr    *grow.Grower
	level int      // the table's level
	cols  int      // quads across at that level
	quads int      // quads at that level
	table []uint64 // 2 bits per pair a·quads+b: 0 unknown, 1 open, 2 hidden
	other map[[2]grow.Quad]bool
}

// maxRegionTable bounds the table: 2^28 pairs, 64 MiB (level 2 of a
// 512×512 grid).
const maxRegionTable = 1 << 28

func newRegionMemo(gr *grow.Grower, level int) *regionMemo {
	m := &regionMemo{gr: gr, level: level, other: map[[2]grow.Quad]bool{}}
	if b := RegionTableBytes(gr.Geometry(), level); b > 0 {
		c, r := gr.Geometry().QuadsAcross(level)
		m.cols, m.quads = c, c*r
		m.table = make([]uint64, b/8)
	}
	return m
}

// RegionTableBytes returns the memory, in bytes, of the table of region
// pairs a Joint keeps for regions of the given level of g (RP's,
// JointOptions.Regions, or the far tier's, JointOptions.Far): 2 bits per
// ordered pair of quads of that level, or 0 beyond 2^28 pairs, where a map
// holds the pairs met instead. level must lie in 0…g.K.
func RegionTableBytes(g quadpvs.Geometry, level int) int64 {
	c, r := g.QuadsAcross(level)
	q := int64(c) * int64(r)
	if q*q > maxRegionTable {
		return 0
	}
	return (q*q + 31) / 32 * 8
}

// hidden reports whether region quads a and b are disjoint and mutually
// hidden, and how many quad-PVS lookups the answer cost (0 when
// remembered).
func (m *regionMemo) hidden(a, b grow.Quad) (bool, int) {
	if a.Level == m.level && b.Level == m.level && m.table != nil {
		k := (a.Y*m.cols+a.X)*m.quads + b.Y*m.cols + b.X
		sh := uint(k&31) * 2
		switch m.table[k>>5] >> sh & 3 {
		case 1:
			return false, 0
		case 2:
			return true, 0
		}
		h := m.gr.QuadsHidden(a, b)
		v := uint64(1)
		if h {
			v = 2
		}
		m.table[k>>5] |= v << sh
		k = (b.Y*m.cols+b.X)*m.quads + a.Y*m.cols + a.X
		m.table[k>>5] |= v << (uint(k&31) * 2)
		return h, 2
	}
	if b.Morton() < a.Morton() || b.Morton() == a.Morton() && b.Level > a.Level {
		a, b = b, a
	}
	if h, ok := m.other[[2]grow.Quad{a, b}]; ok {
		return h, 0
	}
	h := m.gr.QuadsHidden(a, b)
	m.other[[2]grow.Quad{a, b}] = h
	return h, 2
}
