package horizon

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets FRONTIERSETS_KERNELS force the block engine's kernels for
// the tests and benchmarks (auto, avx512, avx2 or scalar; SetKernels).
func TestMain(m *testing.M) {
	if k := os.Getenv("FRONTIERSETS_KERNELS"); k != "" {
		if err := SetKernels(k); err != nil {
			fmt.Fprintln(os.Stderr, "FRONTIERSETS_KERNELS:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}
