package horizon

import (
	"math"
	"math/rand/v2"
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
// without Earth curvature, from random running maxima.
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
	for _, curved := range []bool{false, true} {
		p := Params{Sectors: 64, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSConservative, EarthCurvature: curved}
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
					t.Fatalf("curved %v trial %d (sector %d step %d, block %d,%d) lane %d: %v portable, %v %s",
						curved, trial, k, i, j1.col, j1.row, b, j1.cur[b], j2.cur[b], name)
				}
			}
			for b := range Lanes {
				if j1.cur[b] != before[b] {
					rose++
				}
			}
		}
		if rose < 10000 {
			t.Errorf("curved %v: only %d lanes rose in 20,000 steps: the trials test little", curved, rose)
		}
	}
}
