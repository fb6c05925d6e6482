package interest

// Wire is the byte model of the packets the schemes send (design note
// interest-at-scale §4): every packet costs HeaderB bytes of headers (UDP
// over IPv4: 28) plus its payload — UpdateB per entity update (20: Quake
// III's peer-to-peer updates average 19.5 B, Steed & Zhu), CellB per cell
// or position a control message names (12), SideB per side it names (a
// quad id, 6). An aggregated packet (CSA, a coordinator's downlink) pays
// the header once.
type Wire struct {
	HeaderB, UpdateB, CellB, SideB int
}

// DefaultWire is the model of the design note: 28 B headers, 20 B updates,
// 12 B cells, 6 B sides.
func DefaultWire() Wire { return Wire{HeaderB: 28, UpdateB: 20, CellB: 12, SideB: 6} }

// Traffic adds one tick's bytes under scheme s (NPP, PPP, CS, CSA or AOI:
// the schemes that depend only on who needs whose updates, as Packets) to
// up[i], the bytes client i sends, and down[i], those it receives (n
// clients; needs(i, j): client j needs client i's updates). It returns the
// server's ingress and egress bytes (0 for the peer-to-peer schemes). CS
// relays each update in its own packet; CSA sends each receiver one packet
// with all its updates. FB, FBP and GQ are counted by Exchange.Traffic and
// Joint (JointTickResult.Up, Down).
func Traffic(s Scheme, n int, needs func(i, j int) bool, w Wire, up, down []int64) (in, out int64) {
	pkt := int64(w.HeaderB + w.UpdateB)
	switch s {
	case NPP:
		for i := range n {
			up[i] += int64(n-1) * pkt
			down[i] += int64(n-1) * pkt
		}
	case PPP, AOI:
		for i := range n {
			for j := range n {
				if i != j && needs(i, j) {
					up[i] += pkt
					down[j] += pkt
				}
			}
		}
	case CS, CSA:
		for i := range n {
			up[i] += pkt
			in += pkt
		}
		for j := range n {
			k := int64(0)
			for i := range n {
				if i != j && needs(i, j) {
					k++
				}
			}
			b := k * pkt
			if s == CSA && k > 0 {
				b = int64(w.HeaderB) + k*int64(w.UpdateB)
			}
			down[j] += b
			out += b
		}
	}
	return in, out
}

// Traffic adds the exchange's bytes to up (the senders') and down (the
// receivers'): one update packet per direction of Dir and of Stale.
func (e Exchange) Traffic(w Wire, up, down []int64) {
	pkt := int64(w.HeaderB + w.UpdateB)
	for _, dir := range [2]Dir{e.Dir, e.Stale} {
		if dir&IToJ != 0 {
			up[e.I] += pkt
			down[e.J] += pkt
		}
		if dir&JToI != 0 {
			up[e.J] += pkt
			down[e.I] += pkt
		}
	}
}
