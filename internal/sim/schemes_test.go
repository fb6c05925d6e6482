package sim

import "testing"

// TestPackets: each scheme's packets for three clients of which 1 sees 0
// and 2 sees 0 and 1.
func TestPackets(t *testing.T) {
	// Client 1 sees 0, 2 sees 0 and 1; 0 sees nobody.
	needs := func(i, j int) bool { return (i == 0 && j == 1) || (i == 0 && j == 2) || (i == 1 && j == 2) }
	for _, tc := range []struct {
		s    Scheme
		want int
	}{
		{NPP, 6}, {PPP, 3}, {AOI, 3}, {CS, 3 + 3}, {CSA, 3 + 2}, {FB, -1}, {FBP, -1},
	} {
		if got := Packets(tc.s, 3, needs); got != tc.want {
			t.Errorf("%s: %d packets, want %d", tc.s, got, tc.want)
		}
	}
}
