package horizon

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// walkKernel is a kernelSet's walk.
type walkKernel func(prof, rec, elev []float32, lane, ext *[Lanes]int32, eye *[Lanes]float32, z, sb []float32, a0, maj, mw int, mf int64, inv, dk float32) int

// walkTwins: the walk kernel gives walkLanes's bits — slope bounds, the
// step it stops at, every lane's profile — on random lines over random
// terrain full of ties, signed zeros and infinities, in both axes and
// directions, with and without Earth curvature.
func walkTwins(t *testing.T, name string, walk walkKernel) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 100, float32(math.Inf(1)), float32(math.Inf(-1))}
	val := func() float32 {
		if rng.IntN(4) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.IntN(50)) * 0.5 // many ties
	}
	const pw, h = 200, 200
	elev := make([]float32, pw*h)
	for trial := range 3000 {
		for i := range elev {
			elev[i] = float32(rng.IntN(20))
			if trial%3 == 0 {
				elev[i] = val()
			}
		}
		var lane, ext [Lanes]int32
		var eye [Lanes]float32
		for b := range Lanes {
			lane[b] = int32((b/BlockSide)*pw + b%BlockSide)
			ext[b] = int32(rng.IntN(20))
			eye[b] = float32(rng.IntN(20))
		}
		n := 1 + rng.IntN(70)
		rec := make([]float32, n)
		for i := range rec {
			rec[i] = float32(1 / float64(i+1))
		}
		stop := make([]float32, (n+1<<chunkShift-1)>>chunkShift)
		for i := range stop {
			stop[i] = val()
		}
		mf := int64(rng.Float64() * (1 << 32))
		a0, maj, mw := 100*pw+100, 1, pw
		if rng.IntN(2) == 0 {
			maj, mw = pw, 1
			if mf > 1<<31 {
				mf = -mf / 4
			}
		}
		if rng.IntN(2) == 0 {
			maj = -maj
		}
		var dk float32
		if rng.IntN(3) == 0 {
			dk = 0.01
		}
		inv := float32(0.3)
		p1, p2 := make([]float32, n*Lanes), make([]float32, n*Lanes)
		sb1, sb2 := make([]float32, len(stop)*Lanes), make([]float32, len(stop)*Lanes)
		n1 := walkLanes(p1, rec, elev, &lane, &ext, &eye, stop, sb1, a0, maj, mw, mf, inv, dk)
		n2 := walk(p2, rec, elev, &lane, &ext, &eye, stop, sb2, a0, maj, mw, mf, inv, dk)
		for i := range sb1 {
			if math.Float32bits(sb1[i]) != math.Float32bits(sb2[i]) {
				t.Fatalf("trial %d: slope bound %d: %v scalar, %v %s", trial, i, sb1[i], sb2[i], name)
			}
		}
		if n1 != n2 {
			t.Fatalf("trial %d: walk stopped at %d (scalar), %d (%s)", trial, n1, n2, name)
		}
		for i := range n1 * Lanes {
			if math.Float32bits(p1[i]) != math.Float32bits(p2[i]) {
				t.Fatalf("trial %d: step %d lane %d: %v scalar, %v %s", trial, i/Lanes+1, i%Lanes, p1[i], p2[i], name)
			}
		}
	}
}

// consTwins: the conservative kernel gives consLanes's bits on random
// steps of random blocks over terrain of flats, walls and ties, with and
// without Earth curvature, and the region model's steps (several segments,
// samples and rectangles per patch), from random running maxima.
func consTwins(t *testing.T, name string, cons func(bw *BlockWorker, j *consJob)) {
	rng := rand.New(rand.NewPCG(5, 6))
	const w, h = 37, 29
	elev := make([]float32, w*h)
	for i := range elev {
		switch rng.IntN(4) {
		case 0:
			elev[i] = 10 // flat
		case 1:
			elev[i] = float32(rng.IntN(5)) * 25 // walls
		default:
			elev[i] = float32(rng.IntN(12))
		}
	}
	for _, tc := range []struct {
		los    LOS
		curved bool
	}{{LOSConservative, false}, {LOSConservative, true}, {LOSRegion, false}} {
		curved := tc.curved
		p := Params{Sectors: 64, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: tc.los, EarthCurvature: curved}
		m, err := New(Terrain{Width: w, Height: h, Dx: 30, Dy: 30, Elev: elev}, p)
		if err != nil {
			t.Fatal(err)
		}
		m.segTable()
		bw := m.NewBlockWorker()
		var scratch []consSeg
		rose := 0 // lanes whose maximum the step raised: the kernels did work
		for trial := range 20000 {
			k := rng.IntN(p.Sectors)
			i := 1 + rng.IntN(int(m.secMax[k]))
			var j1 consJob
			j1.segs, j1.bulge, j1.drop, j1.inv = m.consStep(k, i, &scratch)
			j1.col, j1.row = rng.IntN((w+3)/4)*4, rng.IntN((h+3)/4)*4
			j1.live = uint16(rng.Uint32())
			for b := range Lanes {
				bw.eye[b] = float32(rng.IntN(30))
				switch rng.IntN(4) {
				case 0:
					j1.cur[b] = float32(math.Inf(-1))
				case 1:
					j1.cur[b] = float32(rng.IntN(9)-4) * j1.inv // ties with whole metres
				default:
					j1.cur[b] = float32(rng.NormFloat64() * 0.05)
				}
			}
			j2, before := j1, j1.cur
			consLanes(bw, &j1)
			cons(bw, &j2)
			for b := range Lanes {
				if math.Float32bits(j1.cur[b]) != math.Float32bits(j2.cur[b]) {
					t.Fatalf("%v curved %v trial %d (sector %d step %d, block %d,%d) lane %d: %v portable, %v %s",
						tc.los, curved, trial, k, i, j1.col, j1.row, b, j1.cur[b], j2.cur[b], name)
				}
			}
			for b := range Lanes {
				if j1.cur[b] != before[b] {
					rose++
				}
			}
		}
		if rose < 10000 {
			t.Errorf("%v curved %v: only %d lanes rose in 20,000 steps: the trials test little", tc.los, curved, rose)
		}
	}
}

// blockTwins: the whole block engine with the kernel set and with the
// portable one gives the same Blocks and the same profiles, on both real
// crops and curved, limited and nodata cases, in both models.
func blockTwins(t *testing.T, set kernelSet) {
	far := ThesisParams()
	far.MaxDistance, far.EarthCurvature, far.Refraction = 1500, true, 0.13
	cons := Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSConservative}
	consFar := far
	consFar.Sectors, consFar.LOS = 256, LOSConservative
	region := cons
	region.LOS, region.MaxDistance = LOSRegion, 600
	for _, tc := range []struct {
		name string
		ter  Terrain
		p    Params
	}{
		{"hgt", cropWindow(t, "hgt-130x110", 20, 10, 90, 70), ThesisParams()},
		{"dsm", cropWindow(t, "dsm-120x136", 30, 40, 70, 66), ThesisParams()},
		{"hgt far curved", cropWindow(t, "hgt-130x110", 0, 30, 61, 57), far},
		{"hgt conservative", cropWindow(t, "hgt-130x110", 20, 10, 50, 46), cons},
		{"dsm conservative curved", cropWindow(t, "dsm-120x136", 30, 40, 45, 42), consFar},
		{"hgt region 600 m", cropWindow(t, "hgt-130x110", 40, 30, 45, 41), region},
	} {
		m, err := New(tc.ter, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		nodata := make([]bool, len(tc.ter.Elev))
		for i := range nodata {
			nodata[i] = i%97 == 5
		}
		mask := NewMask(tc.ter.Width, tc.ter.Height, nodata)
		scalar := scalarKernels
		ws, wv := m.NewBlockWorker(), m.NewBlockWorker()
		ws.k, wv.k = &scalar, &set
		var bs, bv Block
		for row := 0; row < tc.ter.Height; row += BlockSide {
			for col := 0; col < tc.ter.Width; col += BlockSide {
				if err := ws.Classify(col, row, mask, &bs); err != nil {
					t.Fatal(err)
				}
				if err := wv.Classify(col, row, mask, &bv); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(bs, bv) || !slices.Equal(ws.n, wv.n) || !slices.Equal(ws.start, wv.start) {
					t.Fatalf("%s block (%d,%d): %s kernels differ from the portable ones", tc.name, col, row, set.name)
				}
				end := int(ws.start[m.p.Sectors-1]+ws.n[m.p.Sectors-1]+1) * Lanes
				for i := range end {
					if math.Float32bits(ws.prof[i]) != math.Float32bits(wv.prof[i]) {
						t.Fatalf("%s block (%d,%d): profile slot %d lane %d: %v portable, %v %s", tc.name, col, row, i/Lanes, i%Lanes, ws.prof[i], wv.prof[i], set.name)
					}
				}
			}
		}
	}
}

// boundTwins: the bound kernel gives boundLanes's bits on random jobs over
// random decimated profiles, whose values and slope bounds are small
// integers (ties), signed zeros and infinities.
func boundTwins(t *testing.T, name string, bound func(bw *BlockWorker, j *boundJob)) {
	rng := rand.New(rand.NewPCG(7, 8))
	const S, rows = 64, 60
	m, err := New(Terrain{Width: 40, Height: 40, Dx: 30, Dy: 30, Elev: make([]float32, 40*40)}, Params{Sectors: S, ObserverHeight: 1.8, TargetHeight: 1.8})
	if err != nil {
		t.Fatal(err)
	}
	bw := m.NewBlockWorker()
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}
	val := func() float32 {
		if rng.IntN(6) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.IntN(9) - 4)
	}
	bw.dec = make([]float32, rows*Lanes)
	for i := range bw.dec {
		bw.dec[i] = val()
	}
	for k := range bw.n {
		bw.n[k] = int32(rng.IntN(40))
		bw.decStart[k] = int32(rng.IntN(rows - (int(bw.n[k])+7)/8 - 1))
	}
	decided := 0
	for trial := range 20000 {
		for b := range Lanes {
			bw.tau[b] = float32(rng.IntN(5) - 2)
		}
		inv := []float32{1, 0.5, 0.25}
		j := boundJob{kLo: rng.IntN(2 * S), dNear: float32(rng.IntN(600)), invNear: inv[rng.IntN(3)],
			zmax: val(), zmin: val(), hid: uint16(rng.Uint32()), vis: uint16(rng.Uint32())}
		j.kHi = min(j.kLo+rng.IntN(20), 2*S)
		j.dFar, j.invFar = j.dNear+float32(rng.IntN(300)), j.invNear*inv[rng.IntN(3)]
		if rng.IntN(3) == 0 {
			j.drpNear, j.drpFar = float32(rng.IntN(3)), float32(rng.IntN(3))
		}
		j1, j2 := j, j
		boundLanes(bw, &j1)
		bound(bw, &j2)
		if j1.hid != j2.hid || j1.vis != j2.vis {
			t.Fatalf("trial %d: hid %016b vis %016b portable, hid %016b vis %016b %s", trial, j1.hid, j1.vis, j2.hid, j2.vis, name)
		}
		if j1.hid|j1.vis != 0 {
			decided++
		}
	}
	if decided < 2000 {
		t.Errorf("only %d of 20,000 jobs left a lane decided: the trials test little", decided)
	}
}
