//go:build !(goexperiment.simd && amd64)

package horizon

// Without GOEXPERIMENT=simd on amd64 there is no vector set (lanes.go).
var (
	vectorKernels *kernelSet
	vectorCPU     bool
)
