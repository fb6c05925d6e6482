package interest

import (
	"unsafe"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// regionMemo remembers which pairs of region quads are disjoint and
// mutually hidden (grow.Grower.QuadsHidden), the test of a region-pair
// frontier: two bits per ordered pair of quads of one level in a table
// filled as pairs come up, and a direct-mapped cache of fixed size for the
// other pairs (regions grown to hold a ring, or every pair on grids whose
// table would pass maxRegionTable: 4097² at level 3 has 2.6·10⁵ regions).
// The cache forgets a pair when another takes its slot, and asks the
// grower again when it comes back: a Go map there grew to millions of
// pairs on the 4097² map and its lookups and rehashes were 2/3 of the
// coordinator's time.
type regionMemo struct {
	gr    *grow.Grower
	level int        // the table's level
	cols  int        // quads across at that level
	quads int        // quads at that level
	table []uint64   // 2 bits per pair a·quads+b: 0 unknown, 1 open, 2 hidden
	cache []memoSlot // the other pairs, direct-mapped; allocated when first needed
	slots int        // the cache's length, a power of two
}

// memoSlot is one cached pair: each quad packed by packQuad, the first
// shifted left by 2 over the answer (1 open, 2 hidden; 0: empty slot).
type memoSlot struct{ a, b uint64 }

// memoSlots is the cache's length without a table: 2^21 pairs, 32 MiB;
// memoSlotsBeside beside a table: 2^16 pairs, 1 MiB.
const (
	memoSlots       = 1 << 21
	memoSlotsBeside = 1 << 16
)

// packQuad packs a quad into 37 bits: level (5 bits) above y and x (16
// bits each).
func packQuad(q grow.Quad) uint64 {
	return uint64(q.Level)<<32 | uint64(uint16(q.Y))<<16 | uint64(uint16(q.X))
}

// maxRegionTable bounds the table: 2^28 pairs, 64 MiB (level 2 of a
// 512×512 grid).
const maxRegionTable = 1 << 28

func newRegionMemo(gr *grow.Grower, level int) *regionMemo {
	m := &regionMemo{gr: gr, level: level, slots: memoSlots}
	if b := tableBytes(gr.Geometry(), level); b > 0 {
		c, r := gr.Geometry().QuadsAcross(level)
		m.cols, m.quads = c, c*r
		m.table = make([]uint64, b/8)
		m.slots = memoSlotsBeside // for the pairs of ring-grown regions only
	}
	return m
}

// RegionTableBytes returns the memory, in bytes, of the memo of region
// pairs a Joint keeps for regions of the given level of g (RP's,
// JointOptions.Regions, or the far tier's, JointOptions.Far): 2 bits per
// ordered pair of quads of that level and a cache of 2^16 pairs (1 MiB)
// for regions grown beyond it, or beyond 2^28 pairs a cache of 2^21 pairs
// (32 MiB) that holds the pairs met instead. level must lie in 0…g.K.
func RegionTableBytes(g quadpvs.Geometry, level int) int64 {
	slot := int64(unsafe.Sizeof(memoSlot{}))
	if b := tableBytes(g, level); b > 0 {
		return b + memoSlotsBeside*slot
	}
	return memoSlots * slot
}

// tableBytes returns the bytes of the table of pairs of level's quads, 0
// when there are more than maxRegionTable pairs.
func tableBytes(g quadpvs.Geometry, level int) int64 {
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
	if m.cache == nil {
		m.cache = make([]memoSlot, m.slots)
	}
	pa, pb := packQuad(a), packQuad(b)
	x := (pa*0x9e3779b97f4a7c15 ^ pb) * 0xbf58476d1ce4e5b9
	sl := &m.cache[x>>32&uint64(m.slots-1)]
	if sl.b == pb && sl.a>>2 == pa && sl.a&3 != 0 {
		return sl.a&3 == 2, 0
	}
	h := m.gr.QuadsHidden(a, b)
	v := uint64(1)
	if h {
		v = 2
	}
	sl.a, sl.b = pa<<2|v, pb
	return h, 2
}
