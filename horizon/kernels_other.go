//go:build !amd64

package horizon

// No assembly kernels outside amd64.
var (
	asmKernels *kernelSet
	asmCPU     bool
)
