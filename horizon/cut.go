package horizon

import (
	"math"
)

// Region model versions 4 and 5: cuts across the wedge instead of swept
// squares (from-region visibility, beyond the thesis's §3.1 point model;
// the model's guarantee and its other versions are in region.go). Version
// 4 takes them on heightmap cells, version 5 on PVS cells too (below).
//
// Versions 2 and 3 bound, at each point P of the centres' segment, the
// surface under every positions' segment point near P by the least value
// over the square of one cell around P (the swept hexagon): a ridge one or
// two cells wide, whose flanks lie inside that square, hides nothing. A
// cut bounds it over a line instead. Take observer cell O and target cell
// T whose squares are separated along the wedge's major axis (the column
// axis for a column-major sector, say): every positions' segment from p ∈
// O to q ∈ T crosses each column line X strictly between the squares, at
// one point. So where the surface along the part of column X that the
// segments can cross is everywhere higher than the segments there, every
// positions' segment passes under the surface and T is hidden.
//
//   - Where the segments cross. With O's sample at major coordinate 0, T's
//     at n (whole cells) and X at i, the crossing of p's segment to q's
//     has parameter t = (X − p_x)/(q_x − p_x); over p_x ∈ [−½, ½], q_x ∈
//     [n − ½, n + ½] it spans [(i − ½)/n, (i + ½)/n]. Its minor coordinate
//     is (1−t)·p_y + t·q_y = (1−t)·δp + t·δq + t·n·r, where δ ∈ [−½, ½] are
//     the positions' offsets from the samples and r = (T_y − O_y)/n the
//     centres' minor cells per major cell: within ½ of s·r, s = t·n ∈
//     [i − ½, i + ½]. Over the wedge's directions r spans [rLo, rHi]
//     (monotone in the azimuth between two midlines), so the crossings of
//     every target of the wedge lie on column X between O_y + min(s·r) − ½
//     and O_y + max(s·r) + ½ (the four products at the corners), clipped
//     to the grid's hull, where the positions lie.
//   - The ground. Along a column line the bilinear surface is linear
//     between samples, so its least value over that interval is at one of
//     its ends or at a sample inside (cutMin): G_i.
//   - The heights. The segment's height at the crossing is (1−t)(surface(p)
//     + hObs) + t(surface(q) + τ) ≤ Z_O + t(Z_T − Z_O) (Model.top, as in
//     versions 2 and 3), which over t's span is at most Z_O + (i ± ½)·σ,
//     σ = (Z_T − Z_O)/n. So T is hidden when G_i − Z_O > (i ± ½)·σ, that is
//     when σ < f_i = (G_i − Z_O)/(i + ½) for G_i ≥ Z_O, (G_i − Z_O)/(i − ½)
//     below: one threshold per cut, whatever the target; the profile is
//     their running maximum F.
//   - The ends. The positions check ignores the surface within the
//     heightmap cell centred on either position (|Δx| ≤ ½ and |Δy| ≤ ½):
//     the crossing lies X − p_x ≥ i − ½ from p and q_x − X ≥ n − i − ½ from
//     q, so cuts count from i = 2 to n − 2.
//   - The profile. A cell reads slot j of its wedge's first profile
//     (Worker.slot: j = ⌊D/s − ½⌋ for distance D metres and step s), so
//     D ≥ (j + ½)·s; its major offset is n = D·a, a = |major component|
//     per metre of the direction, between aMin and aMax over the wedge,
//     so n ≥ ⌈(j + ½)·s·aMin⌉ and slot j holds F over cuts up to that less
//     2 (cutSector.q). The cell's test compares the slope per metre
//     (Z_T − Z_O)/D = σ·n/D with the slot; F·aMin (F·aMax where F < 0) is
//     at most F·n/D, so a cell below it has σ < F.
//
// The bound is a different one from versions 2 and 3, not a tighter one:
// a cut's interval is a line where their squares are areas, but its
// heights are taken half a cell on either side of the crossing. Measured
// against version 3 (150 random observers, worker path): +0.05% hidden
// cells on the Total_Viewshed crop (316² at 80 m, S = 360), −0.07% on 316²
// of the HGT tile, +0.84% on 500² of the DSM (S = 1024); behind the berms
// of TestRegion's nearly flat field, 35.7% of the conservative model's
// hidden cells against 0.5%. The block engine takes a block's sixteen
// lanes' cuts in step (cutblock.go), in 512-bit vectors where the CPU has
// them (cut_amd64.s): the crop's bake in 0.7 of version 3's time, so
// the cuts are the default (docs/design/visibility.md). Worker's walk
// (cutProfile) is the scalar reference, one observer at a time.
//
// Rounding: the ground is interpolated in float32, each product rounded on
// its own, less consPad (conservative.go), which covers that and the cell
// test's float32 rounding; the wedge's directions are the conservative
// model's float32 ones (consDir), widened by a relative 10⁻⁶ with the
// slots' bounds, so that every build computes the same bits (TestGolden).
//
// PVS cells (version 5). With Params.PVSCell = k > 1 the walk runs on the
// grid of PVS cells, over regionCoarse's lower surface L and the PVS
// cells' tops; version 4 there bakes version 3's swept squares instead.
// The argument above holds with cells read as PVS cells:
//
//   - The squares are the PVS cells, one cell of their grid on a side
//     (fewer heightmap cells at the right and bottom edges, which only
//     shrinks them), so the crossings' intervals are the same.
//   - The ground. L's bilinear interpolation between PVS cell centres never
//     exceeds the heightmap's surface (regionCoarse), so its least value
//     along an interval bounds the surface there. The heightmap's hull
//     reaches up to half a PVS cell beyond the centres' hull, and the
//     positions' segments may cross a cut in that strip: an interval
//     clipped to the centres' hull then ends at the edge's sample, whose
//     value is the least over a window reaching the grid's edge that holds
//     every sample the surface in the strip interpolates, so it bounds the
//     strip too; an interval wholly beyond the hull takes no cut.
//   - The ends. A cut lies at least (i − ½)·k heightmap cells from either
//     position, outside the heightmap cell centred on it from i = 1 on. The
//     walk still counts from 2: cuts 1 and n − 1 read L's windows over the
//     end squares, below the eye and the top, and hid nothing more on
//     TestRegionCoarse's crops (measured, not kept).
//
// Measured against version 4 (its swept squares there): TestRegionCoarse's
// 12 observers hide 11,742 PVS cells against 9,142 on the HGT crop at
// k = 3, 3,082 against 2,257 and 4,084 against 3,490 on the DSM crop at
// k = 4 and 5; a 1,200² window of the 1 m map at 4 m PVS cells and 2 km
// bakes in 20.8 s against 31.1 s (two workers).

// cutSector is one wedge's constants for the cut walk (Model.cut).
type cutSector struct {
	rLo, rHi   float64 // minor cells per major cell of the wedge's directions, signed along the minor axis
	sLo, sHi   float64 // ±½: the end of s ∈ [i − ½, i + ½] at which s·rLo is least and s·rHi greatest
	aMin, aMax float64 // major cells per metre of the wedge's directions
	q          float64 // slot j holds cuts up to ⌈(j + ½)·q⌉ − 2 (aMin·step, less 10⁻⁶)
}

// cutStep is cut c's interval relative to the observer's minor coordinate
// (cutSector): from loI + loF to hiI + hiF cells, loI and hiI whole, the
// fractions in [0, 1).
type cutStep struct {
	loI, hiI int32
	loF, hiF float32
}

// cutBlock is the run of samples along a line (a column of occT or a row
// of occ) whose highest value cutMax keeps per run: the cut walk's screen.
const cutBlock = 8

// cutTables builds the cut walk's per-sector constants and the transposed
// surface (column-major sectors read a column's samples contiguously).
func (m *Model) cutTables() {
	t, p := m.t, m.p
	m.cut = make([]cutSector, p.Sectors)
	for k := range m.cut {
		// Cells per metre along the two midlines bounding the wedge (x
		// east, y down), the conservative model's float32 directions,
		// which every build rounds alike (consDir); the widenings below
		// (10⁻⁶, relative) cover their rounding and that of the cells'
		// azimuths, which assign cells to wedges.
		d := m.consDir[k]
		x0, y0, x1, y1 := float64(d[0]), float64(d[1]), float64(d[2]), float64(d[3])
		if !m.secColMaj[k] {
			x0, y0, x1, y1 = y0, x0, y1, x1
		}
		// Major components keep their sign across a wedge (no axis lies
		// inside one along its major component), the minor ones per major
		// cell are monotone in the azimuth.
		r0, r1 := y0/math.Abs(x0), y1/math.Abs(x1)
		cs := cutSector{rLo: min(r0, r1), rHi: max(r0, r1)}
		cs.rLo -= float64(1e-6 * (1 + math.Abs(cs.rLo)))
		cs.rHi += float64(1e-6 * (1 + math.Abs(cs.rHi)))
		cs.sLo, cs.sHi = -0.5, 0.5
		if cs.rLo < 0 {
			cs.sLo = 0.5
		}
		if cs.rHi < 0 {
			cs.sHi = -0.5
		}
		// |major| per metre: its extremes at the wedge's ends, or 1/cell
		// where the major axis itself lies inside the wedge.
		cs.aMin, cs.aMax = min(math.Abs(x0), math.Abs(x1)), max(math.Abs(x0), math.Abs(x1))
		if (y0 < 0) != (y1 < 0) {
			cell := t.Dx
			if !m.secColMaj[k] {
				cell = t.Dy
			}
			cs.aMax = 1 / cell
		}
		cs.aMin *= 1 - 1e-6
		cs.aMax *= 1 + 1e-6
		cs.q = cs.aMin / float64(m.secInv[k]) * (1 - 1e-6)
		m.cut[k] = cs
	}
	W, H := t.Width, t.Height
	// The intervals of every sector's cuts 2 … secMax[k].
	m.cutOff = make([]int32, p.Sectors+1)
	for k := range p.Sectors {
		m.cutOff[k+1] = m.cutOff[k] + m.secMax[k] + 1
	}
	m.cutTab = make([]cutStep, m.cutOff[p.Sectors])
	for k := range p.Sectors {
		cs := &m.cut[k]
		tab := m.cutTab[m.cutOff[k]:m.cutOff[k+1]]
		for c := 2; c < len(tab); c++ {
			fc := float64(c)
			lo := float64((fc+cs.sLo)*cs.rLo) - 0.5 - 1e-6
			hi := float64((fc+cs.sHi)*cs.rHi) + 0.5 + 1e-6
			li, hj := math.Floor(lo), math.Floor(hi)
			tab[c] = cutStep{loI: int32(li), hiI: int32(hj), loF: float32(lo - li), hiF: float32(hi - hj)}
			// float32 rounding may reach 1: the next sample then.
			if tab[c].loF >= 1 {
				tab[c].loI, tab[c].loF = tab[c].loI+1, 0
			}
			if tab[c].hiF >= 1 {
				tab[c].hiI, tab[c].hiF = tab[c].hiI+1, 0
			}
		}
	}
	// Each sector's first row j whose cuts reach c (cutLast(j) ≥ c), for
	// c = 0 … secMax[k]+1, at most secMax[k]+1: cutWalk writes the rows
	// cutRow[c] … cutRow[c+1]−1 after cut c.
	m.cutRow = make([]int32, m.cutOff[p.Sectors]+int32(p.Sectors))
	for k := range p.Sectors {
		rows := m.cutRow[m.cutOff[k]+int32(k) : m.cutOff[k+1]+int32(k)+1]
		j, jMax := 1, int(m.secMax[k])+1
		for c := range rows {
			for j < jMax && cutLast(j, m.cut[k].q) < c {
				j++
			}
			rows[c] = int32(j)
		}
	}
	m.cutRecip = make([]float64, max(W, H)+2)
	for c := range m.cutRecip {
		m.cutRecip[c] = 1 / (float64(c) + 0.5)
	}
	m.occT = make([]float32, W*H)
	for r := range H {
		for c := range W {
			m.occT[c*H+r] = m.occ[r*W+c]
		}
	}
	m.cutMaxT, m.cutMax = cutMaxes(m.occT, W, H), cutMaxes(m.occ, H, W)
}

// cutMaxes returns the highest sample of each run of cutBlock along each
// of n lines of length l in z: line x's run b at x·⌈l/cutBlock⌉ + b.
func cutMaxes(z []float32, n, l int) []float32 {
	runs := (l + cutBlock - 1) / cutBlock
	out := make([]float32, n*runs)
	for x := range n {
		line := z[x*l : (x+1)*l]
		for b := range runs {
			v := line[b*cutBlock]
			for _, u := range line[b*cutBlock : min((b+1)*cutBlock, l)] {
				v = max(v, u)
			}
			out[x*runs+b] = v
		}
	}
	return out
}

// cutMin returns the least value of the surface along a line of samples
// z (a column or a row) from a + fa to b + fb cells (0 ≤ a + fa ≤ b + fb ≤
// len(z)−1), linear between samples: the interpolated ends and the
// samples between them.
func cutMin(z []float32, a int, fa float32, b int, fb float32) float32 {
	g := min(cutAt(z, a, fa), cutAt(z, b, fb))
	for _, v := range z[a+1 : b+1] {
		g = min(g, v)
	}
	return g
}

// cutAt interpolates z at a + f, f ∈ [0, 1), in float32 (the product
// rounded on its own, so that no build fuses it).
func cutAt(z []float32, a int, f float32) float32 {
	if f == 0 {
		return z[a]
	}
	return z[a] + float32(f*(z[a+1]-z[a]))
}

// cutProfile fills prof (slots 0 … len(prof)−1 of sector k's line from the
// observer at (col,row), eye metres high) with the cut bound's profile,
// as described above: slot j holds the running maximum over the cuts
// i = 2 … ⌈(j + ½)·q⌉ − 2 of f_i, converted to a slope per metre and
// rounded down to float32. A line stops early once no later cut can raise
// the maximum: suf, scratch it returns (cutSuffix), bounds the cuts of
// every later chunk of 2^chunkShift.
func (m *Model) cutProfile(k, col, row int, eye float32, prof, suf []float32) []float32 {
	cs := &m.cut[k]
	major, minor, minLen := col, row, m.t.Height
	z := m.occT
	if !m.secColMaj[k] {
		major, minor, minLen = row, col, m.t.Width
		z = m.occ
	}
	dir := 1
	if m.secMajor[k] < 0 {
		dir = -1
	}
	n := len(prof) - 1
	lastCut := cutLast(n, cs.q)
	suf = m.cutSuffix(k, major, minor, dir, lastCut, eye, suf)
	zm, runs := m.cutMaxT, (minLen+cutBlock-1)/cutBlock
	if !m.secColMaj[k] {
		zm = m.cutMax
	}
	tab := m.cutTab[m.cutOff[k]:m.cutOff[k+1]]
	ze := eye + m.consPad // the ground less the pad against the eye
	F := math.Inf(-1)
	P := float32(F)
	i := 1    // the last cut taken
	skip := 0 // cuts up to skip cannot raise F (cutGroupTop)
	prof[0] = P
	for j := 1; j <= n; j++ {
		last := cutLast(j, cs.q)
		for ; i < last; i++ {
			c := i + 1
			if c > skip && c&(cutGroup-1) == 0 && c+cutGroup-1 <= lastCut &&
				m.cutGroupTop(k, major, minor, dir, c, c+cutGroup-1, ze, tab) <= F {
				skip = c + cutGroup - 1
			}
			if c > skip {
				if f := m.cutThreshold(z, zm, tab[c], major+dir*c, minor, minLen, runs, c, ze, F); f > F {
					F, P = f, cutSlope(f, cs)
				}
			}
			if c&(1<<chunkShift-1) == 0 && F >= float64(suf[c>>chunkShift]) {
				for ; j <= n; j++ {
					prof[j] = P
				}
				return suf
			}
		}
		prof[j] = P
	}
	return suf
}

// cutGroup is the number of cuts one observer's walk (cutProfile)
// screens at once, a power of 2 whose log2 is a level of the elevation
// pyramid (Model.zmax). The block's walk (BlockWorker.cutWalk) takes them
// without this screen: its cuts cost less than the screen.
const cutGroup = 8

// cutGroupTop returns a bound on f of sector k's cuts c0 … c1 from the
// observer at major, minor, ze the eye plus the pad: from the highest
// elevation of the pyramid's quads of side cutGroup that their intervals
// touch.
func (m *Model) cutGroupTop(k, major, minor, dir, c0, c1 int, ze float32, tab []cutStep) float64 {
	const l = 3 // log2(cutGroup)
	if len(m.zmax) <= l {
		return math.Inf(1)
	}
	minLen, majLen := m.t.Height, m.t.Width
	if !m.secColMaj[k] {
		minLen, majLen = m.t.Width, m.t.Height
	}
	a0, a1 := major+dir*c0, major+dir*c1
	a0, a1 = max(min(a0, a1), 0), min(max(a0, a1), majLen-1)
	b0 := minor + int(min(tab[c0].loI, tab[c1].loI))
	b1 := minor + int(max(tab[c0].hiI, tab[c1].hiI)) + 1
	b0, b1 = max(b0, 0), min(b1, minLen-1)
	top := m.cutTileTop(m.secColMaj[k], l, a0, a1, b0, b1)
	d := float64(top) - float64(ze)
	if d < 0 {
		return d * m.cutRecip[c1-1]
	}
	return d * m.cutRecip[c0]
}

// cutChunkTop returns the highest elevation of the tiles (Model.zmax at
// level chunkShift, or the pyramid's top) that sector k's cuts i0 … i1
// cross from the observers at major … major+w and minor … minor+w (w = 0:
// one observer; BlockSide − 1: a block), −Inf where they lie outside the
// grid: cutSuffix's and BlockWorker.cutTops' screens.
func (m *Model) cutChunkTop(k, major, minor, w, dir, i0, i1 int) float32 {
	cs := &m.cut[k]
	minLen, majLen := m.t.Height, m.t.Width
	if !m.secColMaj[k] {
		minLen, majLen = m.t.Width, m.t.Height
	}
	a0, a1 := min(major+dir*i0, major+dir*i1), max(major+dir*i0, major+dir*i1)+w
	a0, a1 = max(a0, 0), min(a1, majLen-1)
	b0 := float64(minor) + min(float64((float64(i0)+cs.sLo)*cs.rLo), float64((float64(i1)+cs.sLo)*cs.rLo)) - 1
	b1 := float64(minor+w) + max(float64((float64(i0)+cs.sHi)*cs.rHi), float64((float64(i1)+cs.sHi)*cs.rHi)) + 1
	lo, hi := max(int(math.Floor(b0)), 0), min(int(math.Ceil(b1)), minLen-1)
	if a0 > a1 || lo > hi {
		return float32(math.Inf(-1))
	}
	return m.cutTileTop(m.secColMaj[k], min(chunkShift, len(m.zmax)-1), a0, a1, lo, hi)
}

// cutTileTop returns the highest elevation of the tiles of the pyramid's
// level l (Model.zmax) over major cells a0 … a1 and minor cells b0 … b1 of
// a wedge (column-major where colMaj), each range read by its tiles from
// a0>>l to a1>>l (one tile where both ends share it, even if a0 > a1):
// the cut walk's screens.
func (m *Model) cutTileTop(colMaj bool, l, a0, a1, b0, b1 int) float32 {
	tiles, tcols := m.zmax[l], int(m.cols[l])
	top := float32(math.Inf(-1))
	for a := a0 >> l; a <= a1>>l; a++ {
		for b := b0 >> l; b <= b1>>l; b++ {
			x, y := a, b
			if !colMaj {
				x, y = b, a
			}
			top = max(top, tiles[y*tcols+x])
		}
	}
	return top
}

// cutLast returns the last cut slot j of a profile with factor q holds:
// ⌈(j + ½)·q⌉ − 2.
func cutLast(j int, q float64) int {
	return int(math.Ceil(float64(float64(float64(j)+0.5)*q)-1e-9)) - 2
}

// cutSuffix fills suf[c], for the chunks c of 2^chunkShift cuts up to
// lastCut, with a bound on f of every cut after c·2^chunkShift: from the
// highest elevation (Model.zmax) of the tiles that those cuts' intervals
// cross, (z − eye)/(i + ½) at the first such cut i when z is above the
// eye, else (z − eye)/(lastCut − ½), the least negative f can be.
func (m *Model) cutSuffix(k, major, minor, dir, lastCut int, eye float32, suf []float32) []float32 {
	chunks := lastCut>>chunkShift + 1
	if cap(suf) < chunks+1 {
		suf = make([]float32, chunks+1)
	}
	suf = suf[:chunks+1]
	zs := float32(math.Inf(-1))
	for c := chunks - 1; c >= 0; c-- {
		i0, i1 := max(c<<chunkShift+1, 2), min((c+1)<<chunkShift, lastCut)
		if i0 <= i1 {
			zs = max(zs, m.cutChunkTop(k, major, minor, 0, dir, i0, i1))
		}
		// The bound for cuts after chunk c−1's last, c·2^chunkShift.
		first := float64(c<<chunkShift + 1)
		d := float64(zs) - float64(eye)
		switch {
		case math.IsInf(d, -1):
			suf[c] = float32(math.Inf(-1))
		case d >= 0:
			suf[c] = float32(d/(first+0.5)) * (1 + 1e-6)
		default:
			suf[c] = float32(d/(float64(lastCut)-0.5)) * (1 - 1e-6)
		}
	}
	suf[chunks] = float32(math.Inf(-1))
	return suf
}

// cutSlope converts a running maximum F in metres per major cell to the
// slope per metre a cell's test reads, rounded down to float32.
func cutSlope(F float64, cs *cutSector) float32 {
	s := F * cs.aMin
	if F < 0 {
		s = F * cs.aMax
	}
	return cutSlopeOf(s)
}

// cutSlopeOf rounds s down to float32: the greatest float32 not above it,
// what a conversion rounding toward −∞ gives (cutAVX512's).
func cutSlopeOf(s float64) float32 {
	v := float32(s)
	if float64(v) <= s {
		return v
	}
	// Rounded up: the next float32 down (math.Nextafter32 toward −Inf;
	// a negative s that rounded to zero gets the least negative one).
	switch b := math.Float32bits(v); {
	case v > 0:
		return math.Float32frombits(b - 1)
	case v < 0:
		return math.Float32frombits(b + 1)
	default:
		return -math.SmallestNonzeroFloat32
	}
}

// cutThreshold returns cut c's threshold f (−Inf when its interval is empty)
// on line X of z (occT's columns or occ's rows, of minLen samples), the
// observer at minor coordinate minor, or when the screen — the highest
// sample of the runs of cutBlock the interval touches (zm) — shows that f
// cannot exceed the running maximum F, the screen's value. Thresholds are
// in metres per major cell; ze is the eye plus consPad, metres.
func (m *Model) cutThreshold(z, zm []float32, st cutStep, X, minor, minLen, runs, c int, ze float32, F float64) float64 {
	a, fa := minor+int(st.loI), st.loF
	b, fb := minor+int(st.hiI), st.hiF
	if a < 0 {
		a, fa = 0, 0
	}
	if b >= minLen-1 {
		b, fb = minLen-1, 0
	}
	if a > b || a == b && fa > fb {
		return math.Inf(-1)
	}
	top := zm[X*runs+a/cutBlock]
	for r := a/cutBlock + 1; r <= min(b+1, minLen-1)/cutBlock; r++ {
		top = max(top, zm[X*runs+r])
	}
	if f := cutF(float64(top)-float64(ze), c, m.cutRecip); f <= F {
		return f
	}
	return cutF(float64(cutMin(z[X*minLen:(X+1)*minLen], a, fa, b, fb))-float64(ze), c, m.cutRecip)
}

// cutF returns cut c's threshold in metres per major cell for a ground d
// metres above the eye (less the pad): d/(c + ½), or d/(c − ½) below the
// eye (recip from Model.cutRecip).
func cutF(d float64, c int, recip []float64) float64 {
	if d < 0 {
		return d * recip[c-1]
	}
	return d * recip[c]
}
