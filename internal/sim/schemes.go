package sim

import "github.com/frontiersets/frontiersets/interest"

// Scheme names an interest-management scheme whose packets a simulation
// counts per tick, after Steed & Angus §5.1 and Table 2 (clients send
// position updates at the server's rate; a packet is one update from one
// host to another).
type Scheme string

const (
	NPP Scheme = "NPP" // naive peer-to-peer: every client to every other, every tick
	PPP Scheme = "PPP" // perfect peer-to-peer: i to j only when j sees i (an oracle)
	CS  Scheme = "CS"  // client-server: one packet up per client, relayed to each client that may see the sender
	CSA Scheme = "CSA" // client-server aggregated: one packet up per client, one down to each client that may see anyone
	FB  Scheme = "FB"  // frontier based (Manager): the packets of its Exchanges, none for a pair inside a valid frontier set
	FBP Scheme = "FBP" // FB with prediction (interest.Options.Predict)
	AOI Scheme = "AOI" // distance-based area of interest (Hu & Liao's VON): i to j when within a radius
	GQ  Scheme = "GQ"  // joint frontier (interest.Joint): one side per player against all others, exits through a coordinator
	RP  Scheme = "RP"  // region-pair frontiers (interest.Joint with JointOptions.Regions): a pair is silent while its players' quads of one level are hidden from each other
	VON Scheme = "VON" // Voronoi overlay (Hu & Liao): updates to AOI and enclosing neighbours, new neighbours told by boundary neighbours (counted by the simulation)
	VG  Scheme = "VG"  // VON gated by the joint frontier: GQ's pairs without a coordinator, exits flooded over a Voronoi overlay (counted by the simulation)
	HY  Scheme = "HY"  // hybrid (Steed & Zhu): CSA snapshots through a server that coordinates GQ, positions also peer to peer under GQ (counted by the simulation)
)

// Schemes lists every scheme in the order results are reported.
var Schemes = []Scheme{NPP, PPP, CS, CSA, FB, FBP, AOI, VON, GQ, RP, VG, HY}

// Packets returns one tick's packets for n clients under the schemes that
// depend only on who needs whose updates: needs(i, j) reports that client j
// needs client i's updates (j sees or may see i; within the radius for
// AOI). NPP ignores needs; FB and FBP are counted by an interest.Manager
// (Exchange.Packets), GQ and RP by an interest.Joint (JointTickResult.Packets), VON,
// VG and HY by the simulation, and return -1 here.
func Packets(s Scheme, n int, needs func(i, j int) bool) int {
	count := func() (pairs, receivers int) {
		for j := range n {
			any := false
			for i := range n {
				if i != j && needs(i, j) {
					pairs++
					any = true
				}
			}
			if any {
				receivers++
			}
		}
		return pairs, receivers
	}
	switch s {
	case NPP:
		return n * (n - 1)
	case PPP, AOI:
		p, _ := count()
		return p
	case CS:
		p, _ := count()
		return n + p
	case CSA:
		_, r := count()
		return n + r
	}
	return -1
}

// Traffic adds one tick's bytes under scheme s (NPP, PPP, CS, CSA or AOI:
// the schemes that depend only on who needs whose updates, as Packets) to
// up[i], the bytes client i sends, and down[i], those it receives (n
// clients; needs(i, j): client j needs client i's updates). It returns the
// server's ingress and egress bytes (0 for the peer-to-peer schemes). CS
// relays each update in its own packet; CSA sends each receiver one packet
// with all its updates. FB, FBP and GQ are counted by interest.Exchange.Traffic
// and interest.Joint (JointTickResult.Up, Down).
func Traffic(s Scheme, n int, needs func(i, j int) bool, w interest.Wire, up, down []int64) (in, out int64) {
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
