//go:build goexperiment.simd && amd64

package horizon

import "testing"

// TestKernelTwins: each vector kernel gives its portable twin's bits on
// random inputs full of ties, signed zeros and infinities.
func TestKernelTwins(t *testing.T) {
	if avx512Kernels.walk == nil || !simdCPU() {
		t.Skip("no AVX-512 on this CPU")
	}
	walkTwins(t, "avx512", walkLanes16)
	boundTwins(t, "avx512", boundLanes16)
}

// TestBlockKernelTwins: the block engine with the AVX-512 kernels gives the
// portable ones' Blocks and profiles (blockTwins).
func TestBlockKernelTwins(t *testing.T) {
	if !simdCPU() {
		t.Skip("no AVX-512 on this CPU")
	}
	blockTwins(t, avx512Kernels)
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
