//go:build goexperiment.simd && amd64

package horizon

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestKernelTwins: each vector kernel gives its portable twin's bits on
// random inputs full of ties, signed zeros and infinities.
func TestKernelTwins(t *testing.T) {
	if avx512Kernels.walk == nil || !simdCPU() {
		t.Skip("no AVX-512 on this CPU")
	}
	walkTwins(t, "avx512", walkLanes16)
}

// TestBlockKernelTwins: the whole block engine with the vector kernels and
// with the portable ones gives the same Blocks and the same profiles, on
// both real crops and a curved, limited, nodata case.
func TestBlockKernelTwins(t *testing.T) {
	if !simdCPU() {
		t.Skip("no AVX-512 on this CPU")
	}
	defer func(k kernelSet) { kernels = k }(kernels)
	far := ThesisParams()
	far.MaxDistance, far.EarthCurvature, far.Refraction = 1500, true, 0.13
	cons := Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSConservative}
	consFar := far
	consFar.Sectors, consFar.LOS = 256, LOSConservative
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
		ws, wv := m.NewBlockWorker(), m.NewBlockWorker()
		var bs, bv Block
		for row := 0; row < tc.ter.Height; row += BlockSide {
			for col := 0; col < tc.ter.Width; col += BlockSide {
				kernels = scalarKernels
				if err := ws.Classify(col, row, mask, &bs); err != nil {
					t.Fatal(err)
				}
				kernels = avx512Kernels
				if err := wv.Classify(col, row, mask, &bv); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(bs, bv) || !slices.Equal(ws.n, wv.n) || !slices.Equal(ws.start, wv.start) {
					t.Fatalf("%s block (%d,%d): vector kernels differ from the portable ones", tc.name, col, row)
				}
				end := int(ws.start[m.p.Sectors-1]+ws.n[m.p.Sectors-1]+1) * Lanes
				for i := range end {
					if math.Float32bits(ws.prof[i]) != math.Float32bits(wv.prof[i]) {
						t.Fatalf("%s block (%d,%d): profile slot %d lane %d: %v portable, %v vector", tc.name, col, row, i/Lanes, i%Lanes, ws.prof[i], wv.prof[i])
					}
				}
			}
		}
	}
}

// TestConsKernelTwins: the conservative step kernel in vectors gives its
// portable twin's bits on a terrain full of ties (integer metres, flat
// stretches, walls), for random steps, blocks at and past the grid's edges
// (lanes whose patches leave the grid), eyes and running maxima (ties with
// the step's slopes, −Inf) and live lanes.
func TestConsKernelTwins(t *testing.T) {
	if !simdCPU() {
		t.Skip("no AVX-512 on this CPU")
	}
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
			consLanes16(bw, &j2)
			for b := range Lanes {
				if math.Float32bits(j1.cur[b]) != math.Float32bits(j2.cur[b]) {
					t.Fatalf("curved %v trial %d (sector %d step %d, block %d,%d) lane %d: %v portable, %v vector",
						curved, trial, k, i, j1.col, j1.row, b, j1.cur[b], j2.cur[b])
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
