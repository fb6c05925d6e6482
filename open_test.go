package frontiersets_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
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
	faults, pvsFaults := 0, 0
	w, h := s.Size()
	for _, p := range pairs(w, h, 40) {
		_, err := s.Frontier(p[0], p[1], grow.Options{})
		if errors.Is(err, frontiersets.ErrFault) {
			faults++
		} else if err != nil {
			t.Fatalf("query: %v, want nil or ErrFault", err)
		}
		if _, err := s.PVS(p[0][0], p[0][1], nil); errors.Is(err, frontiersets.ErrFault) {
			pvsFaults++
		} else if err != nil {
			t.Fatalf("PVS: %v, want nil or ErrFault", err)
		}
	}
	if faults == 0 || pvsFaults == 0 {
		t.Fatalf("%d queries and %d PVS reads of 40 read past the cut, want some of each", faults, pvsFaults)
	}
	// Rewritten in place with its bytes shifted: garbage under the mapping.
	shifted := append(make([]byte, 24), good...)
	if err := os.WriteFile(path, shifted, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs(w, h, 40) {
		if _, err := s.Frontier(p[0], p[1], grow.Options{}); err != nil && !errors.Is(err, frontiersets.ErrFault) {
			t.Fatalf("query on a rewritten file: %v", err)
		}
		if _, err := s.PVS(p[0][0], p[0][1], nil); err != nil && !errors.Is(err, frontiersets.ErrFault) {
			t.Fatalf("PVS of a rewritten file: %v", err)
		}
	}
	t.Logf("%d of 40 queries faulted after the cut; Err after the rewrite: %v", faults, s.Err())
}

// TestStoreErrorsAndPVS: every way of naming a point off the grid fails
// with an error matching ErrOutside (the C library's FS_ERANGE rests on
// it), the other query errors match theirs, Info describes the store, and
// a frontier set's cells are hidden in the stored PVSs of the other side's
// player (Store.PVS).
func TestStoreErrorsAndPVS(t *testing.T) {
	path, done := bakeDemo()
	defer done()
	s, err := frontiersets.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info := s.Info()
	if w, h := s.Size(); w != 48 || h != 40 || info.Width != w || info.Height != h || info.DxM != 10 || info.CRSName != "EPSG:32619" ||
		info.Params.Sectors != 256 || info.Quads == 0 || info.StoredBytes == 0 || info.Coded || !(info.HiddenKept > 0 && info.HiddenKept <= 1) {
		t.Errorf("Info = %+v", info)
	}
	x0, y0, _ := s.CellToMap(0, 0)
	for name, err := range map[string]error{
		"position": func() error { _, _, err := s.PositionCell(47.5, 0); return err }(),
		"map":      func() error { _, _, err := s.MapToCell(x0-10, y0); return err }(),
		"lon/lat":  func() error { _, _, err := s.LonLatToCell(-72.5, 44.4); return err }(),
		"far":      func() error { _, _, err := s.LonLatToCell(100, -30); return err }(),
		"frontier": func() error { _, err := s.Frontier([2]int{48, 0}, [2]int{1, 1}, grow.Options{}); return err }(),
		"at": func() error {
			_, err := s.FrontierAt([2]float64{-0.6, 0}, [2]float64{1, 1}, grow.Options{})
			return err
		}(),
		"elev":   func() error { _, err := s.Elevation(0, 40); return err }(),
		"nodata": func() error { _, err := s.Nodata(-1, 0); return err }(),
		"pvs":    func() error { _, err := s.PVS(0, -1, nil); return err }(),
		"to map": func() error { _, _, err := s.CellToMap(48, 0); return err }(),
	} {
		if !errors.Is(err, frontiersets.ErrOutside) {
			t.Errorf("%s: %v, want ErrOutside", name, err)
		}
	}
	if r, err := s.Frontier([2]int{3, 3}, [2]int{3, 3}, grow.Options{}); err != nil || !r.MutuallyVisible {
		t.Errorf("one cell for both: %v, mutually visible %v (they see each other)", err, r.MutuallyVisible)
	}
	if _, err := s.Frontier([2]int{3, 3}, [2]int{5, 3}, grow.Options{Neighbours: 5}); !errors.Is(err, frontiersets.ErrOptions) {
		t.Errorf("5 neighbours: %v", err)
	}
	res, err := s.Frontier([2]int{2, 2}, [2]int{45, 37}, grow.Options{})
	if err != nil || res.MutuallyVisible {
		t.Fatal(res.MutuallyVisible, err)
	}
	pa, err := s.PVS(2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := s.PVS(45, 37, make([]byte, 10))
	if err != nil {
		t.Fatal(err)
	}
	if pa[2*48+2] != frontiersets.PVSVisible || pb[37*48+45] != frontiersets.PVSVisible {
		t.Errorf("a player's own cell reads %d and %d in its PVS", pa[2*48+2], pb[37*48+45])
	}
	hidden := 0
	for r := range 40 {
		for c := range 48 {
			if res.B.Contains(c, r) && pa[r*48+c] != frontiersets.PVSHidden {
				t.Fatalf("cell %d,%d of B's region is %d in A's PVS", c, r, pa[r*48+c])
			}
			if res.A.Contains(c, r) && pb[r*48+c] != frontiersets.PVSHidden {
				t.Fatalf("cell %d,%d of A's region is %d in B's PVS", c, r, pb[r*48+c])
			}
			if pa[r*48+c] == frontiersets.PVSHidden {
				hidden++
			}
		}
	}
	if hidden == 0 || hidden == 48*40 {
		t.Errorf("A's PVS hides %d of %d cells", hidden, 48*40)
	}
}

// TestPVSCapMaybe: a capped store's PVSs hold visible and hidden cells
// only — every cell hidden there is hidden in the uncapped store's, and the
// hidden cells the cap dropped read as visible (possibly visible), never
// as PVSUnknown.
func TestPVSCapMaybe(t *testing.T) {
	capped, done := bakeDemo() // 40 nodes a PVS
	defer done()
	dem, err := heightmap.Load("data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors = 256
	whole := filepath.Join(t.TempDir(), "whole.pvs")
	if _, err := frontiersets.Bake(t.Context(), dem, whole, frontiersets.BakeOptions{Params: p, BudgetBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	sc, err := frontiersets.Open(capped)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	sw, err := frontiersets.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	dropped := 0
	var mc, mw []byte
	for _, c := range [][2]int{{2, 2}, {20, 20}, {45, 37}, {10, 30}, {47, 0}} {
		if mc, err = sc.PVS(c[0], c[1], mc); err != nil {
			t.Fatal(err)
		}
		if mw, err = sw.PVS(c[0], c[1], mw); err != nil {
			t.Fatal(err)
		}
		for i := range mc {
			switch {
			case mc[i] != frontiersets.PVSVisible && mc[i] != frontiersets.PVSHidden:
				t.Fatalf("cell %d of %v's PVS is %d", i, c, mc[i])
			case mc[i] == frontiersets.PVSHidden && mw[i] != frontiersets.PVSHidden:
				t.Fatalf("cell %d of %v's capped PVS is hidden, visible uncapped", i, c)
			case mc[i] == frontiersets.PVSVisible && mw[i] == frontiersets.PVSHidden:
				dropped++
			}
		}
	}
	if dropped == 0 {
		t.Error("the cap of 40 nodes dropped no hidden cell of 5 PVSs: the test needs a tighter one")
	}
	t.Logf("%d hidden cells dropped by the cap read as visible", dropped)
}
