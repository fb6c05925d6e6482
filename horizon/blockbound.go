package horizon

// bound decides quad (l,x,y), l ≥ 2, for the lanes of act from bounds
// shared by the block's observers: the offsets from any observer of the
// block to any cell of the quad form one rectangle, whose nearest and
// farthest offsets and corner azimuths bound every lane's (as Worker's bound
// does for one observer); each lane's own highest and lowest target and its
// own profile decide it. A lane is hidden when, for every sector whose
// midline brackets some cell, its running maximum at the nearest distance
// exceeds its highest target's slope; visible when at the farthest distance
// it is at most its lowest target's. Every value is the per-cell test's
// float32 value or bounds it monotonically, so a decided lane is decided the
// same way cell by cell.
func (bw *BlockWorker) bound(l, x, y int, act uint16) (hid, vis uint16) {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	bw.Stats.Bounds++
	c0, r0 := x<<l, y<<l
	c1, r1 := min(c0+1<<l, W)-1, min(r0+1<<l, H)-1
	// Observers of the block: columns bw.col…oc1, rows bw.row…or1.
	oc1, or1 := min(bw.col+BlockSide, W)-1, min(bw.row+BlockSide, H)-1
	dc0, dc1, dr0, dr1 := c0-oc1, c1-bw.col, r0-or1, r1-bw.row
	if dc0 <= 0 && 0 <= dc1 && dr0 <= 0 && 0 <= dr1 {
		return 0, 0 // holds the block's observers
	}
	rc, ok := m.rectBound(dc0, dc1, dr0, dr1)
	if !ok {
		return act, 0 // wholly beyond MaxDistance
	}
	S := m.p.Sectors
	uLo, uHi := rc.uLo, rc.uHi
	// The sectors that bracket some cell: a cell at azimuth u has brackets
	// k0 = int(u + S − ½) (computed so, in float32, a monotone function of
	// u) and k0+k1 (Model.k1: k0 alone in the conservative mode), in the
	// tables that repeat past S. The table's azimuths
	// are monotone in the true ones only up to a unit in the last place:
	// the corners' are widened by two.
	const slack = 0x1p-7 // two units in the last place of a float32 below 2^16
	kLo := int(uLo - slack + float32(S) - 0.5)
	kHi := int(uHi+slack+float32(S)-0.5) + m.k1
	if kHi-kLo+1 >= S {
		kLo, kHi = S, 2*S-1
	}
	qi := y*int(m.cols[l]) + x
	if !rc.far && act == 0 {
		return 0, 0
	}
	bw.Stats.Sectors += kHi - kLo + 1
	bj := &bw.bj
	*bj = boundJob{kLo: kLo, kHi: kHi, dNear: rc.dNear, dFar: rc.dFar, invNear: rc.invNear, invFar: rc.invFar,
		zmax: m.zmax[l][qi], zmin: m.zmin[l][qi], drpNear: rc.drpNear, drpFar: rc.drpFar, hid: act}
	if rc.far {
		bj.vis = act
	}
	bw.k.bound(bw, bj)
	return bj.hid, bj.vis
}

// boundJob is a quad for the bound kernel: the sectors kLo … kHi (in the
// tables that repeat past S) whose midlines bracket its cells, its nearest
// and farthest distances (metres) and their inverses, its highest and
// lowest elevation and the least and the most Earth-curvature drop of its
// cells (metres), and the lanes still possibly hidden (hid) and visible
// (vis), which the kernel narrows. The targets' heights are taken in the
// per-cell test's order of operations, (z + tau) − drop, so that each
// bound is monotone in the values it stands for.
type boundJob struct {
	kLo, kHi        int
	dNear, dFar     float32
	invNear, invFar float32
	zmax, zmin      float32
	drpNear, drpFar float32
	hid, vis        uint16
}
