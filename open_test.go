package frontiersets_test

import (
	"errors"
	"os"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/internal/fault"
)

// pairs returns up to n pairs of cells of a w×h grid, spread over it.
func pairs(w, h, n int) [][2][2]int {
	var ps [][2][2]int
	for i := range n {
		a := [2]int{(7 * i) % w, (3 * i) % h}
		b := [2]int{(w - 1 - (5*i)%w), (h - 1 - (11*i)%h)}
		if a != b {
			ps = append(ps, [2][2]int{a, b})
		}
	}
	return ps
}

// TestTruncatedUnderReader: a store opened in place whose file is cut
// while open makes queries return an error wrapping fault.ErrFault, never
// crash the process; one rewritten with other bytes reads as hiding
// nothing or errs, never crashes.
func TestTruncatedUnderReader(t *testing.T) {
	path, done := bakeDemo()
	defer done()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := frontiersets.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Cut the file to its first page: the trees are past it.
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	faults := 0
	for _, p := range pairs(s.Width, s.Height, 40) {
		_, err := s.Frontier(p[0], p[1], grow.Options{})
		if errors.Is(err, fault.ErrFault) {
			faults++
		} else if err != nil {
			t.Fatalf("query: %v, want nil or fault.ErrFault", err)
		}
	}
	if faults == 0 {
		t.Fatal("no query read past the cut")
	}
	// Rewritten in place with its bytes shifted: garbage under the mapping.
	shifted := append(make([]byte, 24), good...)
	if err := os.WriteFile(path, shifted, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs(s.Width, s.Height, 40) {
		if _, err := s.Frontier(p[0], p[1], grow.Options{}); err != nil && !errors.Is(err, fault.ErrFault) {
			t.Fatalf("query on a rewritten file: %v", err)
		}
	}
	t.Logf("%d of 40 queries faulted after the cut; Err after the rewrite: %v", faults, s.Err())
}
