package horizon

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestSetKernels: every kernel set this build and CPU run can be forced and
// classifies a real crop's blocks to the same bits, in both models; forcing
// one it cannot run, or an unknown name, is a one-line ErrKernels naming
// what is missing.
func TestSetKernels(t *testing.T) {
	t.Cleanup(func() { SetKernels("auto") })
	if err := SetKernels("sse9"); !errors.Is(err, ErrKernels) || !strings.Contains(err.Error(), `"sse9": want auto, avx512, avx2 or scalar`) {
		t.Errorf("unknown kernels: %v", err)
	}
	err := SetKernels("avx512")
	switch {
	case vectorKernels == nil:
		if !errors.Is(err, ErrKernels) || !strings.Contains(err.Error(), "GOEXPERIMENT=simd") {
			t.Errorf("avx512 in a build without vector kernels: %v", err)
		}
	case !vectorCPU:
		if !errors.Is(err, ErrKernels) || !strings.Contains(err.Error(), "lacks AVX-512") {
			t.Errorf("avx512 on a CPU without it: %v", err)
		}
	case err != nil || SIMD() != "avx512":
		t.Errorf("avx512 on this build and CPU: %v, running %s", err, SIMD())
	}
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("error of more than one line: %q", err)
	}
	err = SetKernels("avx2")
	switch {
	case asmKernels == nil:
		if !errors.Is(err, ErrKernels) || !strings.Contains(err.Error(), "amd64 only") {
			t.Errorf("avx2 in a build without assembly kernels: %v", err)
		}
	case !asmCPU:
		if !errors.Is(err, ErrKernels) || !strings.Contains(err.Error(), "lacks AVX2") {
			t.Errorf("avx2 on a CPU without it: %v", err)
		}
	case err != nil || SIMD() != "avx2":
		t.Errorf("avx2 on this build and CPU: %v, running %s", err, SIMD())
	}
	var names []string
	for _, name := range []string{"scalar", "avx512", "avx2", "auto"} {
		if SetKernels(name) == nil {
			names = append(names, name)
		}
	}
	ter := cropWindow(t, "hgt-130x110", 20, 10, 48, 40)
	for _, p := range []Params{{Sectors: 64, ObserverHeight: 1.8, TargetHeight: 1.8}, {Sectors: 64, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSConservative}, {Sectors: 64, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSRegion}} {
		m, err := New(ter, p)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, name := range names {
			if err := SetKernels(name); err != nil {
				t.Fatal(err)
			}
			bw := m.NewBlockWorker()
			var blk Block
			var got []byte
			for row := 0; row < ter.Height; row += BlockSide {
				for col := 0; col < ter.Width; col += BlockSide {
					if err := bw.Classify(col, row, nil, &blk); err != nil {
						t.Fatal(err)
					}
					for b := range Lanes + Unions {
						got = append(got, blockCodes(&blk, b)...)
					}
				}
			}
			if want == nil {
				want = got
			} else if !bytes.Equal(got, want) {
				t.Errorf("%v: kernels %s classify other bits than %s", p.LOS, name, names[0])
			}
		}
	}
	if err := SetKernels("auto"); err != nil {
		t.Fatal(err)
	}
	want := "scalar"
	switch {
	case asmKernels != nil && asmCPU:
		want = "avx2"
	case vectorKernels != nil && vectorCPU:
		want = "avx512"
	}
	if SIMD() != want {
		t.Errorf("auto runs %s, want %s", SIMD(), want)
	}
}

// TestModelKernels: a model's kernels (Model.SetKernels) are its workers',
// whatever the package's default, and a worker keeps the kernels it was
// made with.
func TestModelKernels(t *testing.T) {
	t.Cleanup(func() { SetKernels("auto") })
	ter := Terrain{Width: 20, Height: 20, Elev: make([]float32, 400), Dx: 1, Dy: 1}
	m, err := New(ter, Params{Sectors: 64, ObserverHeight: 1.8, TargetHeight: 1.8})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetKernels("sse9"); !errors.Is(err, ErrKernels) {
		t.Errorf("unknown kernels: %v", err)
	}
	if err := m.SetKernels("scalar"); err != nil || m.Kernels() != "scalar" {
		t.Fatalf("scalar: %v, %s", err, m.Kernels())
	}
	before := m.NewBlockWorker()
	if err := SetKernels("auto"); err != nil {
		t.Fatal(err)
	}
	if w := m.NewBlockWorker(); w.k.name != "scalar" || before.k.name != "scalar" {
		t.Errorf("the model's workers run %s and %s, want scalar", w.k.name, before.k.name)
	}
	m.SetKernels("")
	if m.Kernels() != SIMD() {
		t.Errorf("a model naming no kernels runs %s, the default %s", m.Kernels(), SIMD())
	}
	// A worker made under a default keeps it when the default changes.
	w := m.NewBlockWorker()
	name := w.k.name
	SetKernels("scalar")
	if w.k.name != name {
		t.Errorf("the default's change moved a worker from %s to %s", name, w.k.name)
	}
}
