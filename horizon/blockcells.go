package horizon

import "math/bits"

// quadCells applies the per-cell test to the cells of level-1 quad (x,y)
// (child k at (2x + k&1, 2y + k>>1), those inside the grid) for the lanes
// of act, and returns for each the lanes that see it (Worker.cellVisible,
// lane by lane). A quad outside the block's rows and columns whose offsets
// all lie within reach — nearly every quad — goes to the cell kernel; the
// others are tested lane by lane here.
func (bw *BlockWorker) quadCells(x, y int, act uint16) [4]uint16 {
	m := bw.m
	W, H := m.t.Width, m.t.Height
	bw.Stats.LaneCells += 4 * bits.OnesCount16(act)
	dc, dr := 2*x-bw.col, 2*y-bw.row // lane 0's offset to the quad's first cell
	if (dc < 0 || dc >= BlockSide) && (dr < 0 || dr >= BlockSide) {
		// Lane (x,y) has offset (dc−x, dr−y) to a cell at offset (dc,dr)
		// from lane 0: its table entry is in the 4×4 window of rows |dr|…,
		// columns |dc|… of one quadrant (+1 row or column for the second
		// cell of the quad).
		j := &bw.cj
		east, south := dc > 0, dr > 0
		maxc, maxr := BlockSide-1-dc, BlockSide-1-dr // west, north: the quad's first column and row are farthest
		j.flip = 0
		if east {
			maxc, j.flip = dc+1, j.flip|1
		}
		if south {
			maxr, j.flip = dr+1, j.flip|2
		}
		if maxc <= m.rc && maxr <= m.rr {
			switch {
			case east && !south:
				j.quad = 0
			case east:
				j.quad = 1
			case south:
				j.quad = 2
			default:
				j.quad = 3
			}
			stride := m.rc + 1
			j.cells, j.act = 0, act
			for k := range 4 {
				c, r := 2*x+k&1, 2*y+k>>1
				if c >= W || r >= H {
					continue
				}
				j.cells |= 1 << k
				j.z[k] = m.top[r*W+c]
				wc, wr := bw.col-c, bw.row-r // the window's nearest column and row
				if east {
					wc = c - bw.col - (BlockSide - 1)
				}
				if south {
					wr = r - bw.row - (BlockSide - 1)
				}
				j.win[k] = wr*stride + wc
			}
			bw.k.cells(bw, j)
			return [4]uint16{j.vis[0] & act, j.vis[1] & act, j.vis[2] & act, j.vis[3] & act}
		}
	}
	var vs [4]uint16
	bw.Stats.NearCells += 4 * bits.OnesCount16(act)
	for k := range 4 {
		c, r := 2*x+k&1, 2*y+k>>1
		if c < W && r < H {
			if bw.k.near != nil {
				vs[k] = bw.k.near(bw, c, r, act)
			} else {
				vs[k] = bw.cell(c, r, act)
			}
		}
	}
	return vs
}

// cell applies the per-cell test to cell (c,r) for the lanes of act, lane
// by lane, and returns those that see it.
func (bw *BlockWorker) cell(c, r int, act uint16) uint16 {
	m := bw.m
	z := m.top[r*m.t.Width+c]
	var vis uint16
	for b := range Lanes {
		if act&(1<<b) == 0 {
			continue
		}
		dc, dr := c-bw.col-b%BlockSide, r-bw.row-b/BlockSide
		if dc == 0 && dr == 0 {
			vis |= 1 << b
			continue
		}
		if abs(dc) > m.rc || abs(dr) > m.rr {
			continue
		}
		o, u := m.offset(dc, dr)
		d := m.offD[o]
		if d > m.lim {
			continue
		}
		zz := z + bw.tau[b]
		if m.offDrp != nil {
			zz -= m.offDrp[o]
		}
		k0 := int(u + float32(m.p.Sectors) - 0.5) // brackets' first sector, not reduced modulo S
		t := bw.slot(k0, d, b)
		if m.k1 != 0 { // else both brackets are sector k0
			t = min(t, bw.slot(k0+m.k1, d, b))
		}
		if zz*m.offInv[o] >= t {
			vis |= 1 << b
		}
	}
	return vis
}

// cellJob is a level-1 quad for the cell kernel: for each of its cells k
// in cells (bit k: inside the grid), its elevation z[k] and where its
// lanes' offsets lie in the offset table: a 4×4 window from entry win[k]
// (the smallest |dr| and |dc| of the lanes), lane (x,y) at window column x
// (3−x when flip&1: the quad is east of the block) and row y (3−y when
// flip&2: south), in quadrant quad of quadrantU (0 north-east, 1
// south-east, 2 south-west, 3 north-west). The kernel sets vis[k] to the
// lanes that see cell k (all 16 computed).
type cellJob struct {
	z     [4]float32
	win   [4]int
	vis   [4]uint16
	act   uint16 // the lanes wanted (others may be computed, or not)
	cells uint8
	flip  uint8
	quad  uint8
}

// slot returns lane b's running maximum of sector k mod S (0 ≤ k ≤ 2S) at
// the slot that decides a cell d metres away (Worker.slot).
func (bw *BlockWorker) slot(k int, d float32, b int) float32 {
	j := max(min(int(float32(d*bw.m.secInvX[k])-marginSteps), int(bw.n[k])), 0)
	return bw.prof[(int(bw.start[k])+j)*Lanes+b]
}
