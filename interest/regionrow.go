package interest

import (
	"slices"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// regionRow decides, for a player whose region became reg, which of the
// placed players' regions are disjoint from reg and mutually hidden with
// it — the players of jt.regs (the exiting one not among them), player j's
// region of[j], every region at least of level `level` — and sets
// jt.rowHid[j] to the answer. It answers as the region memo does pair by
// pair (regionMemo.hidden), but a quad of regions at a time where it can:
// an exit into a new region decides a row of region pairs, one per player,
// and on a large map most are new to the memo, each a descent of two trees
// decoded for it (on the 4097² map, perf put 87% of the coordinator's
// exits there):
//
//   - reg's PVS hides the regions it hides in one walk
//     (quadpvs.Tree.QuadStatuses over the sorted regions); the few it does
//     not (regions within view, or overlapping reg) go to the memo, whose
//     test also asks reg's ancestors' PVSs;
//   - the other direction is certified for every region in a quad Q at
//     once where Q's PVS hides reg (it holds the union of its cells' PVSs,
//     so no cell of those regions sees reg), splitting Q into its children
//     otherwise, down to a lone candidate or a region's level, where the
//     memo answers.
//
// So a pair is hidden by the memo's test or by reg's PVS and that of a
// quad holding the other region, disjoint from reg: disjoint and mutually
// hidden either way. Where the memo keeps a table of every pair of the
// regions' level (grids up to about 1,000² at level 3), it answers pair by
// pair instead: a pair there is decided once and read back in a few
// nanoseconds, less than the walk (on the urban 500² store, 1,024 walkers
// at 10 Hz: coordinator p50 12 ms pair by pair, 14 ms a quad at a time).
func (jt *Joint) regionRow(reg grow.Quad, of []grow.Quad, level int) {
	ro := &jt.regs
	if jt.memo.table != nil {
		for _, j := range ro.ord {
			jt.rowMemo(reg, of, int(j))
		}
		return
	}
	no := len(ro.ord)
	if no == 0 {
		return
	}
	jt.rst = slices.Grow(jt.rst[:0], no)[:no]
	t := jt.gr.PVS(reg)
	t.QuadStatuses(jt.gr.Geometry(), ro.key, ro.lvl, jt.rst)
	jt.res.Walks++
	jt.rpre = append(jt.rpre[:0], 0)
	for x, s := range jt.rst {
		j := int(ro.ord[x])
		c := jt.rpre[x]
		if s == quadpvs.Hidden && !reg.Overlaps(of[j]) {
			c++
		} else {
			jt.rowMemo(reg, of, j)
		}
		jt.rpre = append(jt.rpre, c)
	}
	jt.rowGroups(reg, of, level, grow.Quad{Level: jt.gr.Geometry().K}, 0, no)
}

// rowGroups certifies the second direction for the candidate regions (those
// reg's PVS hides, counted by jt.rpre) among the run regs[lo:hi] of the
// regions in quad Q: all at once where Q's PVS hides reg, otherwise by Q's
// children; a lone candidate, or those of a quad no larger than a region,
// go to the memo.
func (jt *Joint) rowGroups(reg grow.Quad, of []grow.Quad, level int, Q grow.Quad, lo, hi int) {
	cand := jt.rpre[hi] - jt.rpre[lo]
	if cand == 0 {
		return
	}
	ro := &jt.regs
	if cand > 1 && Q.Level > level {
		if !Q.Overlaps(reg) && holdsRun(ro.key, ro.lvl, Q, lo, hi) {
			jt.res.Lookups++
			if jt.gr.Hides(Q, reg) {
				for x := lo; x < hi; x++ {
					if jt.rpre[x+1] > jt.rpre[x] {
						jt.rowHid[ro.ord[x]] = true
					}
				}
				return
			}
		}
		at := childRuns(ro.key, Q, lo, hi)
		for k := range 4 {
			jt.rowGroups(reg, of, level, quadChild(Q, k), at[k], at[k+1])
		}
		return
	}
	for x := lo; x < hi; x++ {
		if jt.rpre[x+1] > jt.rpre[x] {
			jt.rowMemo(reg, of, int(ro.ord[x]))
		}
	}
}

// rowMemo sets jt.rowHid[j] to the region memo's answer for reg and player
// j's region of[j].
func (jt *Joint) rowMemo(reg grow.Quad, of []grow.Quad, j int) {
	h, cost := jt.memo.hidden(reg, of[j])
	jt.res.Lookups += int64(cost)
	jt.rowHid[j] = h
}
