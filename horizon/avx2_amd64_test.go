//go:build amd64

package horizon

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestWalkAVX2Twin: the AVX2 walk gives walkLanes's bits.
func TestWalkAVX2Twin(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	walkTwins(t, "avx2", walkLanesAVX2)
}

// TestConsAVX2Twin: the AVX2 conservative kernel gives consLanes's bits,
// and so does its 512-bit form on a CPU with AVX-512F.
func TestConsAVX2Twin(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	consTwins(t, "avx2", func(bw *BlockWorker, j *consJob) {
		if bw.m.t.Width < 2 || bw.m.t.Height < 2 {
			consLanes(bw, j)
			return
		}
		consAVX2(bw, j)
	})
	if !cpu.X86.HasAVX512F {
		t.Log("no AVX-512F on this CPU: consAVX512 not run")
		return
	}
	consTwins(t, "avx512 step", func(bw *BlockWorker, j *consJob) {
		if bw.m.t.Width < 2 || bw.m.t.Height < 2 {
			consLanes(bw, j)
			return
		}
		consAVX512(bw, j)
	})
}

// TestBlockAVX2Twins: the block engine with the AVX2 kernels gives the
// portable ones' Blocks and profiles, with the step and the cell test in
// 256-bit vectors and, on a CPU with AVX-512F, in 512-bit ones; the steps
// fetching their segments as for a table in the cache and, the second
// time, as for one streaming from memory (Model.consFar).
func TestBlockAVX2Twins(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	defer func(v bool, far int64) { asm512, farTableBytes = v, far }(asm512, farTableBytes)
	for _, wide := range []bool{false, true} {
		if wide && !cpu.X86.HasAVX512F {
			t.Log("no AVX-512F on this CPU: consAVX512 and cellAVX512 not run")
			continue
		}
		asm512 = wide
		for _, far := range []int64{1 << 62, 0} {
			// -short (make test) runs each width with one of the two
			// fetch distances (the 256-bit step near, the 512-bit far;
			// the fetches change no result); make check all four.
			if testing.Short() && (far == 0) != wide {
				continue
			}
			farTableBytes = far
			blockTwins(t, avx2Kernels)
		}
	}
}

// TestBoundAVX2Twin: the AVX2 bound kernel gives boundLanes's bits.
func TestBoundAVX2Twin(t *testing.T) {
	if !asmCPU {
		t.Skip("no AVX2 on this CPU")
	}
	boundTwins(t, "avx2", boundAVX2)
}
