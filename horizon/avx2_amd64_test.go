//go:build amd64

package horizon

import "testing"

// TestWalkAVX2Twin: the AVX2 walk gives walkLanes's bits.
func TestWalkAVX2Twin(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	walkTwins(t, "avx2", walkLanesAVX2)
}

// TestConsAVX2Twin: the AVX2 conservative kernel gives consLanes's bits.
func TestConsAVX2Twin(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	consTwins(t, "avx2", consLanesAVX2)
}

// TestBlockAVX2Twins: the block engine with the AVX2 kernels gives the
// portable ones' Blocks and profiles.
func TestBlockAVX2Twins(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	blockTwins(t, avx2Kernels)
}

// TestBoundAVX2Twin: the AVX2 bound kernel gives boundLanes's bits.
func TestBoundAVX2Twin(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	boundTwins(t, "avx2", boundAVX2)
}
