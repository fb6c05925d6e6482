package blockindex

import "testing"

// TestEntry: entries round-trip at the limits, and the first offset and
// length beyond them are refused.
func TestEntry(t *testing.T) {
	for _, c := range [][2]uint64{{0, 0}, {1, 1}, {1<<(64-LenBits) - 1, 1<<LenBits - 1}, {123456789, 4321}} {
		e, err := Entry(c[0], c[1])
		if err != nil {
			t.Fatalf("Entry(%d, %d): %v", c[0], c[1], err)
		}
		if off, n := At(e); off != c[0] || n != c[1] {
			t.Errorf("At(Entry(%d, %d)) = %d, %d", c[0], c[1], off, n)
		}
	}
	for _, c := range [][2]uint64{{0, 1 << LenBits}, {1 << (64 - LenBits), 0}} {
		if _, err := Entry(c[0], c[1]); err == nil {
			t.Errorf("Entry(%d, %d) accepted", c[0], c[1])
		}
	}
}
