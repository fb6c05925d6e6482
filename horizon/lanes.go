package horizon

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
)

// The block engine's kernels, one lane per observer of a block. These are
// the portable versions; lanes_simd.go has vector versions that compute the
// same bits (TestKernelTwins), used where the build has GOEXPERIMENT=simd
// and the CPU AVX-512, and *_amd64.s AVX2 versions (avx2_amd64.go), used
// by other amd64 builds on CPUs with AVX2 (SIMD reports which).

// stepShift sets the block walk's early-stop granularity: lines are
// checked every 2^stepShift steps (BenchmarkBlock).
const stepShift = 4

// decShift sets the bounds' decimation of the profiles: every
// 2^decShift-th slot (BlockWorker.dec).
const decShift = 3

// defaultKernels are the kernels a BlockWorker takes when its model names
// none (Model.SetKernels): autoKernels at start, SetKernels after. The
// sets beside the portable one: asmKernels, the AVX2 assembly set of amd64
// builds (avx2_amd64.go; nil elsewhere), and vectorKernels, the AVX-512
// set of a GOEXPERIMENT=simd build (lanes_simd.go; nil otherwise); asmCPU
// and vectorCPU report whether the CPU runs them.
var defaultKernels atomic.Pointer[kernelSet]

func init() {
	k := autoKernels()
	defaultKernels.Store(&k)
}

// autoKernels returns the fastest set this build and CPU run: AVX2
// (assembly), else AVX-512, else the portable one. The AVX2 set comes
// first though AVX-512 is wider: on the test machine (a 2-core AVX-512
// Xeon) the assembly baked the HGT window's 200² cells, one worker, in
// 7.1–8.1 s (sector) and 15.6–18.8 s (conservative) of user time against
// the AVX-512 kernels' 8.6–9.3 s and 17.5–18.0 s.
func autoKernels() kernelSet {
	switch {
	case asmKernels != nil && asmCPU:
		return *asmKernels
	case vectorKernels != nil && vectorCPU:
		return *vectorKernels
	}
	return scalarKernels
}

// kernelSet is one implementation of the kernels.
type kernelSet struct {
	name  string
	walk  func(prof, rec, elev []float32, lane, ext *[Lanes]int32, eye *[Lanes]float32, z, sb []float32, a0, maj, mw int, mf int64, inv, dk float32) int
	bound func(bw *BlockWorker, j *boundJob)
	cells func(bw *BlockWorker, j *cellJob)
	cons  func(bw *BlockWorker, j *consJob)
	// consRun, where not nil, runs steps i … i+n−1 of sector k from the
	// segment table (all ≤ consL) as cons would one after the other with
	// j.live fixed, writing j.cur after step i+r to row[r·Lanes:]
	// (walkConservative).
	consRun func(bw *BlockWorker, j *consJob, k, i, n int, row []float32)
	// near, where not nil, is BlockWorker.cell: the lanes of act that see
	// cell (c, r), a cell of the block's row or column band (quadCells).
	near func(bw *BlockWorker, c, r int, act uint16) uint16
	// cut, where not nil, is cutLanesGo (the region model's cut for the
	// lanes st.ev, on z, occT or occ).
	cut func(st *cutLanes, z []float32)
	// cutRun, where not nil, takes cuts c0 … c1 (2 ≤ c0 ≤ c1 < len(tab))
	// for the lanes st.ev as cut would one after the other, each on the
	// loads-of-four path (cutLanes.fast; the caller checks), writing after
	// each the rows that end at it (cutLanes.cutRows). Cut c's four lines
	// start at base0 + (c − c0)·stepX in z (the observers' minor
	// coordinate included, not loI); it reports false where it ran nothing.
	cutRun func(st *cutLanes, z []float32, tab []cutStep, recip []float64, c0, c1, base0, stepX int) bool
}

var scalarKernels = kernelSet{name: "scalar", walk: walkLanes, bound: boundLanes, cells: cellLanes, cons: consLanes}

// SIMD reports the kernels a BlockWorker of a model that names none uses:
// "scalar" (portable Go), "avx2" (Go assembly, amd64 builds on a CPU with
// AVX2) or "avx512" (GOEXPERIMENT=simd builds on a CPU with AVX-512).
func SIMD() string { return defaultKernels.Load().name }

// KernelNames lists the names SetKernels takes.
const KernelNames = "auto, avx512, avx2 or scalar"

// ErrKernels is returned by SetKernels for kernels this build or CPU cannot
// run.
var ErrKernels = errors.New("horizon: kernels unavailable")

// SetKernels selects, by name, the kernels of the BlockWorkers created
// afterwards for models that name none (Model.SetKernels): "auto" (the
// fastest this build and CPU run, the default), "avx512", "avx2" or
// "scalar". Every set computes the same bits; forcing one lets tests and
// benchmarks cover each path on one machine. It is safe for concurrent
// use; workers already created keep their kernels. Errors wrap ErrKernels,
// in one line naming what is missing, so that a forced vector path fails
// with a message, not an illegal instruction.
func SetKernels(name string) error {
	k, err := lookupKernels(name)
	if err != nil {
		return err
	}
	defaultKernels.Store(&k)
	return nil
}

// CheckKernels reports whether this build and CPU run the kernels name
// (SetKernels' names): nil, or an error wrapping ErrKernels.
func CheckKernels(name string) error {
	_, err := lookupKernels(name)
	return err
}

// SetKernels makes the model's BlockWorkers, created afterwards, use the
// kernels name (the package's SetKernels names) instead of the package's
// default; "" keeps the default. It is not safe for concurrent use with
// NewBlockWorker. Errors as the package's SetKernels.
func (m *Model) SetKernels(name string) error {
	if name == "" {
		m.kernels = nil
		return nil
	}
	k, err := lookupKernels(name)
	if err != nil {
		return err
	}
	m.kernels = &k
	return nil
}

// Kernels names the kernels the model's next BlockWorker will use.
func (m *Model) Kernels() string { return m.kernelSet().name }

// kernelSet returns the model's kernels, or the package's default.
func (m *Model) kernelSet() *kernelSet {
	if m.kernels != nil {
		return m.kernels
	}
	return defaultKernels.Load()
}

// lookupKernels returns the kernel set name names.
func lookupKernels(name string) (kernelSet, error) {
	switch {
	case name == "auto" || name == "":
		return autoKernels(), nil
	case name == scalarKernels.name || name == "portable":
		return scalarKernels, nil
	case name == "avx512" && vectorKernels == nil:
		return kernelSet{}, fmt.Errorf("%w: avx512: this build has no vector kernels (build with GOEXPERIMENT=simd on amd64); use auto or scalar", ErrKernels)
	case name == "avx512" && !vectorCPU:
		return kernelSet{}, fmt.Errorf("%w: avx512: this CPU lacks AVX-512 (F, CD, BW, DQ, VL); use auto or scalar", ErrKernels)
	case name == "avx512":
		return *vectorKernels, nil
	case name == "avx2" && asmKernels == nil:
		return kernelSet{}, fmt.Errorf("%w: avx2: this build has no AVX2 kernels (amd64 only); use auto or scalar", ErrKernels)
	case name == "avx2" && !asmCPU:
		return kernelSet{}, fmt.Errorf("%w: avx2: this CPU lacks AVX2; use auto or scalar", ErrKernels)
	case name == "avx2":
		return *asmKernels, nil
	}
	return kernelSet{}, fmt.Errorf("%w: %q: want %s", ErrKernels, name, KernelNames)
}

// walkLanes fills prof[Lanes·(i−1) + b] with lane b's running maximum slope
// after step i = 1 … of one sector's midline, seen from eye[b], and returns
// the steps filled. Step i of lane b samples elev at a = a0 + lane[b] +
// (i−1)·maj + ⌊y⌋·mw and a+mw, weighted by y's fraction, y = i·mf in 32.32
// fixed point (walkLine's arithmetic, lowered by the Earth-curvature drop
// dk·i² metres when dk > 0); t = inv·rec[i−1]. Steps past ext[b] leave lane
// b's maximum as it was.
//
// The early stop: z[c] bounds, in metres (padded for the interpolation's
// rounding), every sample of every lane in chunk c (steps c·2^stepShift+1
// … (c+1)·2^stepShift); so lane b's slopes there are at most h·t at the
// chunk's first step when h = z[c] − eye[b] ≥ 0, at its last when h < 0.
// sb (scratch, len(z)·Lanes) receives the suffix maxima of these bounds,
// and the walk stops after chunk c−1 once every lane still inside its line
// has a running maximum at least sb[c]: no later sample can raise it.
func walkLanes(prof, rec, elev []float32, lane, ext *[Lanes]int32, eye *[Lanes]float32, z, sb []float32,
	a0, maj, mw int, mf int64, inv, dk float32) int {
	n := len(rec)
	slopeBounds(sb, z, eye, rec, inv)
	var cur [Lanes]float32
	for b := range cur {
		cur[b] = float32(math.Inf(-1))
	}
	y := mf
	for i := 0; i < n; i++ {
		a := a0 + int(y>>32)*mw
		w := float32(uint32(y)) * 0x1p-32
		fi := float32(i + 1)
		t := inv * rec[i]
		drop := float32(dk * fi * fi)
		out := prof[i*Lanes : (i+1)*Lanes]
		for b := range Lanes {
			ab := a + int(lane[b])
			z0 := elev[ab]
			z := z0 + float32(w*(elev[ab+mw]-z0))
			if s := (z - drop - eye[b]) * t; s > cur[b] && int32(i) < ext[b] {
				cur[b] = s
			}
			out[b] = cur[b]
		}
		if (i+1)&(1<<stepShift-1) == 0 {
			if c := (i + 1) >> stepShift; c < len(z) && lanesDone(&cur, ext, sb[c*Lanes:(c+1)*Lanes], int32(i+1)) {
				return i + 1
			}
		}
		y += mf
		a0 += maj
	}
	return n
}

// slopeBounds fills sb[c·Lanes + b] with the highest slope lane b can see
// in chunks c, c+1, … of a line of len(rec) steps whose samples in chunk c
// lie at most z[c] metres high (walkLanes).
func slopeBounds(sb, z []float32, eye *[Lanes]float32, rec []float32, inv float32) {
	next := float32(math.Inf(-1))
	var prev [Lanes]float32
	for b := range prev {
		prev[b] = next
	}
	for c := len(z) - 1; c >= 0; c-- {
		tn := inv * rec[c<<stepShift]
		tf := inv * rec[min((c+1)<<stepShift, len(rec))-1]
		row := sb[c*Lanes : (c+1)*Lanes]
		for b := range Lanes {
			h := z[c] - eye[b]
			s := h * tf
			if h >= 0 {
				s = h * tn
			}
			if !(s > prev[b]) {
				s = prev[b]
			}
			row[b], prev[b] = s, s
		}
	}
}

// lanesDone reports whether every lane is past its line's end (ext ≤ i) or
// has its maximum at least bound[b].
func lanesDone(cur *[Lanes]float32, ext *[Lanes]int32, bound []float32, i int32) bool {
	bound = bound[:Lanes]
	for b := range Lanes {
		if ext[b] > i && !(cur[b] >= bound[b]) {
			return false
		}
	}
	return true
}

// boundLanes narrows a boundJob's lanes: lane b stays hidden when, in
// every sector, its running maximum at (the decimated slot below) the slot
// of dNear exceeds its
// highest target's slope, sHi = (zmax + tau[b] − drpNear)·invNear
// (·invFar when below the eye); visible when its running maximum at (the
// decimated slot above) the slot of dFar is at most its lowest target's, sLo = (zmin + tau[b] −
// drpFar)·invFar (·invNear when below the eye). It stops when no lane is
// left.
func boundLanes(bw *BlockWorker, j *boundJob) {
	var sHi, sLo [Lanes]float32
	for b := range Lanes {
		zHi := j.zmax + bw.tau[b] - j.drpNear
		zLo := j.zmin + bw.tau[b] - j.drpFar
		sHi[b] = zHi * j.invFar
		if zHi >= 0 {
			sHi[b] = zHi * j.invNear
		}
		sLo[b] = zLo * j.invNear
		if zLo >= 0 {
			sLo[b] = zLo * j.invFar
		}
	}
	secInv := bw.m.secInvX
	hid, vis := j.hid, j.vis
	for k := j.kLo; k <= j.kHi && hid|vis != 0; k++ {
		inv, n, st := secInv[k], int(bw.n[k]), int(bw.decStart[k])
		jn := max(min(int(float32(j.dNear*inv)-marginSteps), n), 0) >> decShift
		jf := (max(min(int(float32(j.dFar*inv)-marginSteps), n), 0) + 1<<decShift - 1) >> decShift
		near := bw.dec[(st+jn)*Lanes : (st+jn+1)*Lanes]
		far := bw.dec[(st+jf)*Lanes : (st+jf+1)*Lanes]
		var h, v uint16
		for b := range Lanes {
			if near[b] > sHi[b] {
				h |= 1 << b
			}
			if far[b] <= sLo[b] {
				v |= 1 << b
			}
		}
		hid &= h
		vis &= v
	}
	j.hid, j.vis = hid, vis
}

// cellLanes applies the per-cell test to a cellJob's cells for every lane
// (the caller keeps those it wants) and sets vis: Worker.cellVisible's
// arithmetic on the windows' table entries, with the bracketing sectors k0
// = ⌊u + S − ½⌋ and k0+k1 (Model.k1) read from the tables that repeat
// past S.
func cellLanes(bw *BlockWorker, j *cellJob) {
	m := bw.m
	S := float32(m.p.Sectors)
	half := float32(S / 2)
	stride := m.rc + 1
	for k := range 4 {
		if j.cells&(1<<k) == 0 {
			continue
		}
		var vis uint16
		for b := range Lanes {
			x, y := b%BlockSide, b/BlockSide
			if j.flip&1 != 0 {
				x = BlockSide - 1 - x
			}
			if j.flip&2 != 0 {
				y = BlockSide - 1 - y
			}
			o := j.win[k] + y*stride + x
			q := m.offU[o]
			var u float32
			switch j.quad {
			case 0:
				u = q
			case 1:
				u = half - q
			case 2:
				u = half + q
			default:
				u = S - q
			}
			d := m.offD[o]
			zz := j.z[k] + bw.tau[b]
			if m.offDrp != nil {
				zz -= m.offDrp[o]
			}
			k0 := int(u + S - 0.5)
			var v uint16
			t := bw.slot(k0, d, b)
			if m.k1 != 0 {
				t = min(t, bw.slot(k0+m.k1, d, b))
			}
			if zz*m.offInv[o] >= t && d <= m.lim {
				v = 1
			}
			vis |= v << b
		}
		j.vis[k] = vis
	}
}

// consJob is one step of the conservative block walk (walkConservative):
// the step's chord segments for lane 0's observer at cell (col,row)
// (consStep), the slack per cell of slope, the Earth-curvature drop in
// metres and 1/d; live, the lanes to update; cur, the lanes' running
// maximum slopes, updated in place.
type consJob struct {
	segs             []consSeg
	col, row         int
	bulge, drop, inv float32
	live             uint16
	cur              [Lanes]float32
}

// consLanes raises each live lane b's cur[b] to its step slope (z − drop −
// eye[b])·inv when that is greater, z the lane's lower bound of the surface
// over the arc (Model.chordLow for the observer at (col + b mod 4, row +
// b div 4)); a lane whose chord misses the grid keeps cur[b].
func consLanes(bw *BlockWorker, j *consJob) {
	m := bw.m
	for b := range Lanes {
		if j.live&(1<<b) == 0 {
			continue
		}
		if z, in := m.chordLow(j.col+b%BlockSide, j.row+b/BlockSide, j.segs, j.bulge, j.drop, bw.eye[b], j.inv, j.cur[b]); in {
			if s := (z - j.drop - bw.eye[b]) * j.inv; s > j.cur[b] {
				j.cur[b] = s
			}
		}
	}
}

// lanesIn returns the lanes b whose patch (qx + b mod 4, qy + b div 4)
// lies in the pw×ph patches of the grid.
func lanesIn(qx, qy, pw, ph int) uint16 {
	if qx >= 0 && qy >= 0 && qx+BlockSide <= pw && qy+BlockSide <= ph {
		return 0xffff
	}
	var cols, bits uint16
	for x := range BlockSide {
		if qx+x >= 0 && qx+x < pw {
			cols |= 1 << x
		}
	}
	for y := range BlockSide {
		if qy+y >= 0 && qy+y < ph {
			bits |= cols << (BlockSide * y)
		}
	}
	return bits
}
