package sim

import (
	"fmt"

	"github.com/frontiersets/frontiersets/interest"
)

// hybrid counts scheme HY, Steed & Zhu's hybrid network: every client sends
// its state to a server each tick and gets one aggregated snapshot back
// when it may see anyone (CSA), while positions also go peer to peer under
// the joint frontier (GQ's open pairs, announcements and flips), arriving
// one hop earlier. The coordinator is the server: an exit report rides on
// the client's uplink (its cell, no packet of its own) and the
// coordinator's answer on the snapshot when the client gets one that tick.
// It runs beside the visibility pass, which knows the tick's may-see
// relation.
type hybrid struct {
	jt      *interest.Joint
	players []interest.Player
	recv    []bool // client gets a snapshot this tick
	work    []float64
	row     *Row
}

func newHybrid(x *run) (*hybrid, error) {
	n := x.n
	jt, err := interest.NewJoint(x.gr, n, jointOptions(x.cfg, x.o))
	if err != nil {
		return nil, err
	}
	return &hybrid{jt: jt, players: make([]interest.Player, n), recv: make([]bool, n), row: &Row{Scheme: HY}}, nil
}

// tick runs tick tk, counting into a: the oracle holds the tick's may-see
// relation.
func (h *hybrid) tick(x *run, tk int, a *account) error {
	paths, o, w := x.paths, x.o, x.w
	packets, m, la := a.packets, a.m, a.la
	n := len(h.players)
	res, err := h.jt.Tick(cellsAt(paths, tk, h.players))
	if err != nil {
		return fmt.Errorf("hybrid, tick %d: %w", tk, err)
	}
	h.row.Queries += int64(res.Exits)
	h.work = append(h.work, float64(res.Work.Nanoseconds())/1e6)
	// The snapshots: a client gets one when CSA's bytes reach it (the
	// meter's bytes start from zero each tick).
	in, out := Traffic(CSA, n, o.maySee, w, m.up, m.down)
	hb := int64(w.HeaderB)
	k := int64(n) // the uplinks
	for j := range n {
		h.recv[j] = m.down[j] > 0
		if h.recv[j] {
			k++
		}
	}
	k += int64(res.Updates + res.Announcements + res.Flips)
	for i := range n {
		up, down := res.Up[i], res.Down[i]
		if res.Exited[i] {
			up -= hb // the report rides on the uplink
			in -= hb
		}
		if res.Told[i] {
			if h.recv[i] {
				down -= hb // the answer rides on the snapshot
				out -= hb
			} else {
				k++
			}
		}
		m.up[i] += up
		m.down[i] += down
	}
	packets[tk] = k
	m.tick(in+res.ServerIn, out+res.ServerOut)
	la.tick(tk, func(i, j int) bool { return !h.jt.Silent(i, j) }, h.jt.Sends, o)
	return nil
}

// finish fills the row's coordinator work.
func (h *hybrid) finish() *Row {
	h.row.QueryP50MS, h.row.QueryP99MS, h.row.QueryMaxMS = percentiles(h.work)
	return h.row
}
