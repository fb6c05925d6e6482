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
