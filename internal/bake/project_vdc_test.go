package bake

import (
	"slices"
	"testing"
)

// TestVanDerCorput: the calibration's tile order is a permutation whose
// prefixes spread over the range (0, n/2, n/4, 3n/4, …).
func TestVanDerCorput(t *testing.T) {
	if got := vanDerCorput(8); !slices.Equal(got, []int{0, 4, 2, 6, 1, 5, 3, 7}) {
		t.Errorf("n=8: %v", got)
	}
	for _, n := range []int{1, 2, 3, 5, 42, 1000} {
		got := vanDerCorput(n)
		s := slices.Clone(got)
		slices.Sort(s)
		for i := range s {
			if s[i] != i {
				t.Fatalf("n=%d: %v is not a permutation", n, got)
			}
		}
	}
}
