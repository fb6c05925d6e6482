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
