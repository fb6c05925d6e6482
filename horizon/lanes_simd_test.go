//go:build goexperiment.simd && amd64

package horizon

import (
	"math"
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
	consTwins(t, "avx512", consLanes16)
}
