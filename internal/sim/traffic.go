package sim

import (
	"slices"

	"github.com/frontiersets/frontiersets/interest"
)

// meter accumulates one scheme's bytes per client, second by second, into
// per client-second rates: the distribution behind the kbit/s columns.
type meter struct {
	n, perSec   int     // clients; ticks per second
	tickS       float64 // seconds per tick
	ticks       int     // ticks in the current second
	up, down    []int64 // this tick's bytes per client (Traffic adds here)
	secUp       []int64 // the current second's bytes per client
	secDown     []int64
	kbpsUp      []float64 // one sample per client and second
	kbpsDown    []float64
	bytes       int64 // all clients' sent bytes (every packet counted once)
	srvIn       int64 // a server's or coordinator's bytes
	srvOut      int64
	srvPeakMbps float64
	secSrv      int64
}

func newMeter(n, perSec int, tickS float64) *meter {
	return &meter{n: n, perSec: perSec, tickS: tickS, up: make([]int64, n), down: make([]int64, n),
		secUp: make([]int64, n), secDown: make([]int64, n)}
}

// tick closes one tick whose bytes are in up and down, and a server's in
// and out.
func (m *meter) tick(in, out int64) {
	for i := range m.n {
		m.secUp[i] += m.up[i]
		m.secDown[i] += m.down[i]
		m.bytes += m.up[i]
	}
	clear(m.up)
	clear(m.down)
	m.srvIn += in
	m.srvOut += out
	m.secSrv += in + out
	m.bytes += out // a server's packets are sent by it, not by a client
	if m.ticks++; m.ticks == m.perSec {
		m.flush()
	}
}

// flush turns the current second's bytes into kbit/s samples.
func (m *meter) flush() {
	if m.ticks == 0 {
		return
	}
	s := float64(m.ticks) * m.tickS
	for i := range m.n {
		m.kbpsUp = append(m.kbpsUp, float64(m.secUp[i])*8/1000/s)
		m.kbpsDown = append(m.kbpsDown, float64(m.secDown[i])*8/1000/s)
	}
	m.srvPeakMbps = max(m.srvPeakMbps, float64(m.secSrv)*8/1e6/s)
	clear(m.secUp)
	clear(m.secDown)
	m.secSrv, m.ticks = 0, 0
}

// fill writes the meter's figures into row r, over a run of seconds s.
func (m *meter) fill(r *Row, seconds float64) {
	m.flush()
	r.Bytes = m.bytes
	r.KbpsUpMean, r.KbpsUpP95, r.KbpsUpMax = meanP95Max(m.kbpsUp)
	r.KbpsDownMean, r.KbpsDownP95, r.KbpsDownMax = meanP95Max(m.kbpsDown)
	if seconds > 0 {
		r.ServerMbps = float64(m.srvIn+m.srvOut) * 8 / 1e6 / seconds
	}
	r.ServerPeakMbps = m.srvPeakMbps
}

func meanP95Max(v []float64) (mean, p95, mx float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return sum / float64(len(s)), s[min(len(s)-1, int(0.95*float64(len(s))))], s[len(s)-1]
}

// wire returns cfg's wire model, DefaultWire when unset.
func wire(cfg Config) interest.Wire {
	if cfg.Wire == (interest.Wire{}) {
		return interest.DefaultWire()
	}
	return cfg.Wire
}

// lagAudit counts a scheme's late pair-ticks under one-way network delay:
// ordered pairs (i, j) at tick t where j sees i by the uncompressed PVS but
// the decisions in force at t did not send i's updates to j. Two decisions
// govern a pair, each made earlier by the time its inputs and answers take
// to travel: whether the pair is open at all (a frontier scheme's silent
// pairs change by a renegotiation or a coordinator's answer: a round trip,
// lagOpen = 2d) and whether, open, i sends to j (the members' or a
// server's view of positions: lagSend = d). With no delay it counts the
// scheme's misses. LateSilent are the late pairs a silent decision held.
// Ticks before the first decisions in force are not counted.
type lagAudit struct {
	n                int
	lagOpen, lagSend int
	open, send       [][]uint64 // the last lag+1 ticks' decisions: bit i·n+j
	late, lateSilent int64
}

func newLagAudit(n, lagOpen, lagSend int) *lagAudit {
	a := &lagAudit{n: n, lagOpen: lagOpen, lagSend: lagSend, open: make([][]uint64, lagOpen+1), send: make([][]uint64, lagSend+1)}
	for k := range a.open {
		a.open[k] = make([]uint64, (n*n+63)/64)
	}
	for k := range a.send {
		a.send[k] = make([]uint64, (n*n+63)/64)
	}
	return a
}

// tick records tick tk's decisions — open(i, j): the pair is not silent
// (nil: always open); send(i, j): i's updates go to j — and counts tk's
// late pairs against the decisions in force.
func (a *lagAudit) tick(tk int, open, send func(i, j int) bool, o *oracle) {
	n := a.n
	record := func(ring [][]uint64, lag int, f func(i, j int) bool) {
		cur := ring[tk%(lag+1)]
		clear(cur)
		for i := range n {
			for j := range n {
				if i != j && (f == nil || f(i, j)) {
					cur[(i*n+j)>>6] |= 1 << ((i*n + j) & 63)
				}
			}
		}
	}
	record(a.open, a.lagOpen, open)
	record(a.send, a.lagSend, send)
	if tk < max(a.lagOpen, a.lagSend) {
		return
	}
	op := a.open[(tk-a.lagOpen)%(a.lagOpen+1)]
	se := a.send[(tk-a.lagSend)%(a.lagSend+1)]
	bit := func(b []uint64, k int) bool { return b[k>>6]>>(k&63)&1 != 0 }
	for i := range n {
		for j := range n {
			if k := i*n + j; i != j && o.seesAt(tk, i, j) && !(bit(op, k) && bit(se, k)) {
				a.late++
				if !bit(op, k) {
					a.lateSilent++
				}
			}
		}
	}
}
