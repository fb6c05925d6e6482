package horizon

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/internal/losref"
)

// TestRegion: on windows of both real crops and on two nearly flat
// terrains made here, under the default version (4, cuts) and version 3,
// no position in an observer cell sees a position in a cell the region
// model hides (corners, random positions and an adversarial search for the
// highest sight line, against exact line of sight sampled 16 times per
// cell and at every column and row line on the bilinear surface),
// Classify's pyramid agrees with Viewshed, and the model keeps most of the
// point model's hidden cells (logged; the bench measures it on the full
// terrains). Version 4 keeps at least 20% of them behind the berms, where
// the swept squares keep almost none.
func TestRegion(t *testing.T) {
	size, observers, perObserver := 48, 6, 150
	if !testing.Short() {
		size, observers, perObserver = 80, 24, 1000
	}
	terrains := []struct {
		name string
		ter  Terrain
	}{
		{"hgt-130x110", cropWindow(t, "hgt-130x110", 10, 10, size, size)},
		{"dsm-120x136", cropWindow(t, "dsm-120x136", 10, 10, size, size)},
		{"berms", flatTerrain(size, true)},
		{"ripples", flatTerrain(size, false)},
	}
	for _, tr := range terrains {
		for _, version := range []int{0, 3} {
			share := regionCheck(t, tr.name, tr.ter, version, observers, perObserver)
			if tr.name == "berms" && version == 0 && share < 0.2 {
				t.Errorf("berms, version 4: keeps %.1f%% of the point model's hidden cells, want at least 20%%", 100*share)
			}
		}
	}
}

// flatTerrain returns a nearly flat size² terrain of 0.6 m cells: with
// berms, a field of 0–5 cm noise crossed by four straight berms 2.5 m
// high and 2.4 m wide at the foot; else ripples of 2 m around a plane.
func flatTerrain(size int, berms bool) Terrain {
	ter := plane(size, size, 0.6)
	rng := rand.New(rand.NewPCG(3, 4))
	for r := range size {
		for c := range size {
			x, y := float64(c), float64(r)
			if !berms {
				ter.Elev[r*size+c] = float32(2 * math.Sin(x/7) * math.Cos(y/9))
				continue
			}
			h := 0.05 * rng.Float64()
			for _, b := range [][3]float64{{1, 0.3, 0.2}, {0.2, 1, 0.45}, {1, -0.5, 0.7}, {0.7, 0.7, 0.9}} {
				d := math.Abs(b[0]*x+b[1]*y-b[2]*float64(size)) / math.Hypot(b[0], b[1]) // cells from the crest
				h = max(h, 2.5*(1-d/2))
			}
			ter.Elev[r*size+c] = float32(h)
		}
	}
	return ter
}

// regionCheck runs TestRegion's checks on ter under region version
// version (0: the default) and returns the share of the point model's
// hidden cells the region model keeps.
func regionCheck(t *testing.T, name string, ter Terrain, version, observers, perObserver int) float64 {
	size := ter.Width
	p := DefaultParams()
	p.LOS = LOSConservative
	point, err := New(ter, p)
	if err != nil {
		t.Fatal(err)
	}
	p.LOS, p.Version = LOSRegion, version
	region, err := New(ter, p)
	if err != nil {
		t.Fatal(err)
	}
	name = fmt.Sprintf("%s v%d", name, p.ModelVersion())
	wp, wr := point.NewWorker(), region.NewWorker()
	g := losref.Grid{Width: size, Height: size, Elev: ter.Elev}
	check := losref.Positions{Grid: g, HObs: p.ObserverHeight, Tau: p.TargetHeight, PerCell: 16, Random: 16, Dx: ter.Dx, Dy: ter.Dy}
	search := check
	search.Search = true
	// Observers from their own source, so that the shares logged
	// compare between model versions (the checks draw from rng as
	// many values as they need).
	orng := rand.New(rand.NewPCG(7, uint64(len(name))))
	rng := rand.New(rand.NewPCG(5, uint64(len(name))))
	lv := NewLevels(size, size)
	var hiddenP, hiddenR, both, pairs, checked, ceilN, ceilSeen int
	worst := math.Inf(-1)
	for range observers {
		oc, or := orng.IntN(size), orng.IntN(size)
		bp, _ := wp.Viewshed(oc, or, Bitmap{})
		br, _ := wr.Viewshed(oc, or, Bitmap{})
		if err := wr.Classify(oc, or, lv, nil); err != nil {
			t.Fatal(err)
		}
		var hidden [][2]int
		for r := range size {
			for c := range size {
				if !bp.Visible(c, r) {
					hiddenP++
				}
				if br.Visible(c, r) {
					continue
				}
				hiddenR++
				if !bp.Visible(c, r) {
					both++
				}
				if levelStatus(lv, size, c, r) != QuadHidden {
					t.Fatalf("%s: Classify and Viewshed differ at (%d,%d) from (%d,%d)", name, c, r, oc, or)
				}
				if max(abs(c-oc), abs(r-or)) <= 1 {
					t.Fatalf("%s: (%d,%d) hides its neighbour (%d,%d)", name, oc, or, c, r)
				}
				hidden = append(hidden, [2]int{c, r})
			}
		}
		if !testing.Short() {
			// The ceiling: the point model's hidden cells that positions
			// see, which no from-region model may hide.
			for range perObserver / 4 {
				c, r := rng.IntN(size), rng.IntN(size)
				if bp.Visible(c, r) {
					continue
				}
				ceilN++
				if _, best := search.Worst(rng, oc, or, c, r); best >= 0 {
					ceilSeen++
				}
			}
		}
		rng.Shuffle(len(hidden), func(i, j int) { hidden[i], hidden[j] = hidden[j], hidden[i] })
		for i, h := range hidden[:min(len(hidden), perObserver)] {
			ck := check
			if i < perObserver/3 {
				ck = search
			}
			n, c := ck.Worst(rng, oc, or, h[0], h[1])
			pairs += n
			checked++
			worst = max(worst, c)
			if c >= 0 {
				t.Errorf("%s: (%d,%d) hides (%d,%d), but positions in them see each other (clearance %.3f m)", name, oc, or, h[0], h[1], c)
			}
		}
	}
	if hiddenR == 0 || pairs == 0 {
		t.Fatalf("%s: the region model hid nothing: the test checks nothing", name)
	}
	share := float64(both) / float64(max(hiddenP, 1))
	t.Logf("%s %d²: region hides %d cells, point model %d (%.1f%% of its hidden kept); %d hidden cell pairs checked with %d position pairs, highest sight line %.3f m under the surface",
		name, size, hiddenR, hiddenP, 100*share, checked, pairs, -worst)
	if ceilN > 0 {
		t.Logf("%s: positions see each other in %d of %d cell pairs the point model hides: a from-region model keeps at most %.1f%%",
			name, ceilSeen, ceilN, 100*(1-float64(ceilSeen)/float64(ceilN)))
	}
	return share
}

// TestRegionWall: a known answer. A flat plane with a wall 10 m high and 9
// cells thick: the region model hides the lee beyond the wall's foot from
// an observer 11 cells before it, sees the near side and the wall's top,
// and no observer hides its eight neighbours, even at the wall's foot.
func TestRegionWall(t *testing.T) {
	ter := plane(41, 9, 1)
	for r := range 9 {
		for c := 16; c <= 24; c++ {
			ter.Elev[r*41+c] = 10
		}
	}
	p := DefaultParams()
	p.LOS = LOSRegion
	m, err := New(ter, p)
	if err != nil {
		t.Fatal(err)
	}
	w := m.NewWorker()
	bm, err := w.Viewshed(5, 4, Bitmap{})
	if err != nil {
		t.Fatal(err)
	}
	for c := range 41 {
		switch vis := bm.Visible(c, 4); {
		case c <= 15 && !vis:
			t.Errorf("(%d,4) on the near side is hidden", c)
		case c >= 16 && c <= 18 && !vis:
			t.Errorf("(%d,4) on the wall's near edge is hidden", c)
		case c >= 27 && vis:
			t.Errorf("(%d,4) in the wall's lee is visible", c)
		}
	}
	for _, c := range []int{15, 16, 24, 25} {
		bm, err = w.Viewshed(c, 4, bm)
		if err != nil {
			t.Fatal(err)
		}
		for dc := -1; dc <= 1; dc++ {
			for dr := -1; dr <= 1; dr++ {
				if !bm.Visible(c+dc, 4+dr) {
					t.Errorf("(%d,4) hides its neighbour (%d,%d)", c, c+dc, 4+dr)
				}
			}
		}
	}
}

// TestRegionCoarse: with PVS cells of k×k heightmap cells (odd and even
// k) the model lives on the grid of PVS cells, and no position in an
// observer PVS cell sees a position in a PVS cell it hides, against exact
// line of sight on the heightmap's surface; Classify agrees with Viewshed,
// and the block engine with Worker: under the default version (5, the
// cuts) and under version 4 (the swept squares there). Over the three
// crops the cuts hide more.
func TestRegionCoarse(t *testing.T) {
	observers, perObserver := 5, 120
	if !testing.Short() {
		observers, perObserver = 12, 400
	}
	cuts, squares := 0, 0
	for _, tc := range []struct {
		crop string
		k    int
		dist float64
	}{
		{"hgt-130x110", 3, 0},
		{"dsm-120x136", 4, 0},
		{"dsm-120x136", 5, 40},
	} {
		cuts += regionCoarseCheck(t, tc.crop, tc.k, tc.dist, 0, observers, perObserver)
		squares += regionCoarseCheck(t, tc.crop, tc.k, tc.dist, 4, observers, perObserver)
	}
	// Not from every observer: from 5 of the DSM's at k = 4, 731 against 863.
	if cuts <= squares {
		t.Errorf("the cuts hide %d PVS cells, the swept squares %d", cuts, squares)
	}
}

// regionCoarseCheck runs TestRegionCoarse's checks on one crop at PVS
// cells of k under the given version, returning the hidden cells.
func regionCoarseCheck(t *testing.T, crop string, k int, dist float64, version, observers, perObserver int) int {
	t.Helper()
	ter := readCrop(t, crop)
	p := DefaultParams()
	p.LOS, p.PVSCell, p.MaxDistance, p.Version = LOSRegion, k, dist, version
	name := fmt.Sprintf("%s k=%d v%d", crop, k, p.ModelVersion())
	m, err := New(ter, p)
	if err != nil {
		t.Fatal(err)
	}
	pg := m.Terrain()
	if w, h := PVSGrid(ter.Width, ter.Height, k); pg.Width != w || pg.Height != h || pg.Dx != float64(k)*ter.Dx {
		t.Fatalf("%s: PVS grid %d×%d at %g m, want %d×%d at %g m", name, pg.Width, pg.Height, pg.Dx, w, h, float64(k)*ter.Dx)
	}
	check := losref.Positions{Grid: losref.Grid{Width: ter.Width, Height: ter.Height, Elev: ter.Elev}, Cell: k,
		HObs: p.ObserverHeight, Tau: p.TargetHeight, PerCell: 8, Random: 16, Search: true, Dx: ter.Dx, Dy: ter.Dy, MaxDistance: dist}
	w := m.NewWorker()
	lv := NewLevels(pg.Width, pg.Height)
	rng := rand.New(rand.NewPCG(9, uint64(k)))
	hidden, pairs, checked := 0, 0, 0
	for range observers {
		oc, or := rng.IntN(pg.Width), rng.IntN(pg.Height)
		bm, err := w.Viewshed(oc, or, Bitmap{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Classify(oc, or, lv, nil); err != nil {
			t.Fatal(err)
		}
		var hid [][2]int
		for r := range pg.Height {
			for c := range pg.Width {
				if bm.Visible(c, r) {
					continue
				}
				if levelStatus(lv, pg.Width, c, r) != QuadHidden {
					t.Fatalf("%s: Classify and Viewshed differ at (%d,%d) from (%d,%d)", name, c, r, oc, or)
				}
				hid = append(hid, [2]int{c, r})
			}
		}
		hidden += len(hid)
		rng.Shuffle(len(hid), func(i, j int) { hid[i], hid[j] = hid[j], hid[i] })
		for _, h := range hid[:min(len(hid), perObserver)] {
			n, best := check.Worst(rng, oc, or, h[0], h[1])
			pairs += n
			checked++
			if best >= 0 {
				t.Errorf("%s: (%d,%d) hides (%d,%d), but positions in them see each other (clearance %.3f m)", name, oc, or, h[0], h[1], best)
			}
		}
	}
	if checked == 0 {
		t.Fatalf("%s: nothing hidden: the test checks nothing", name)
	}
	// The block engine gives Worker's pyramids (every fifth block under
	// -short).
	bw := m.NewBlockWorker()
	var blk Block
	nb := 0
	for row := 0; row < pg.Height; row += BlockSide {
		for col := 0; col < pg.Width; col += BlockSide {
			if nb++; testing.Short() && nb%5 != 1 {
				continue
			}
			if err := bw.Classify(col, row, nil, &blk); err != nil {
				t.Fatal(err)
			}
			for b := range Lanes {
				c, r := col+b%BlockSide, row+b/BlockSide
				if c >= pg.Width || r >= pg.Height {
					continue
				}
				if err := w.Classify(c, r, lv, nil); err != nil {
					t.Fatal(err)
				}
				if got, want := blockCodes(&blk, b), levelCodes(lv, pg.Width, pg.Height); !bytes.Equal(got, want) {
					t.Fatalf("%s: block (%d,%d) lane %d differs from Worker", name, col, row, b)
				}
			}
		}
	}
	t.Logf("%s, PVS cells of %d (%d×%d), version %d: %d hidden cells from %d observers; %d checked with %d position pairs, none seeing each other",
		crop, k, pg.Width, pg.Height, p.ModelVersion(), hidden, observers, checked, pairs)
	return hidden
}

// TestParseModel: model names with and without a version, the versions
// this build bakes, and what it refuses.
func TestParseModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		los     LOS
		version int
		ok      bool
	}{
		{"region", LOSRegion, 0, true},
		{"region-v5", LOSRegion, 0, true}, // the default: the same as no version
		{"region-v2", LOSRegion, 2, true},
		{"region-v3", LOSRegion, 3, true},
		{"region-v4", LOSRegion, 4, true},
		{"region-v1", 0, 0, false},
		{"region-v6", 0, 0, false},
		{"region-vx", 0, 0, false},
		{"sector-v1", LOSSector, 0, true},
		{"conservative", LOSConservative, 0, true},
		{"exact-v1", 0, 0, false},
		{"-v2", 0, 0, false},
	} {
		l, v, err := ParseModel(tc.name)
		if (err == nil) != tc.ok || (tc.ok && (l != tc.los || v != tc.version)) {
			t.Errorf("ParseModel(%q) = %v, %d, %v", tc.name, l, v, err)
		}
		if err != nil && !errors.Is(err, ErrParams) {
			t.Errorf("ParseModel(%q): %v does not wrap ErrParams", tc.name, err)
		}
	}
	if got, want := ModelNames(), "sector or conservative or region or region-v2 or region-v3 or region-v4"; got != want {
		t.Errorf("ModelNames() = %q, want %q", got, want)
	}
	p := DefaultParams()
	if p.ModelVersion() != 5 {
		t.Errorf("default region version %d", p.ModelVersion())
	}
	for _, v := range []int{1, 6, -1} {
		p.Version = v
		if err := p.Validate(); !errors.Is(err, ErrParams) {
			t.Errorf("region version %d: %v", v, err)
		}
	}
	for _, v := range []int{2, 3, 4, 5} {
		p.Version = v
		if err := p.Validate(); err != nil || p.ModelVersion() != v {
			t.Errorf("region version %d: %v, ModelVersion %d", v, err, p.ModelVersion())
		}
	}
}

// TestRegionPoint: under version 3, a sample of a swept arc lies inside
// the grid exactly when one of its entries' patches does, wherever the
// observer stands, and every entry is that sample (the patch's corner at
// (u, v)); version 2's four entries are the same sample too.
func TestRegionPoint(t *testing.T) {
	for _, v := range []int{2, 3} {
		m := &Model{regionVersion: v}
		for _, size := range [][2]int{{2, 2}, {3, 5}, {6, 4}} {
			W, H := size[0], size[1]
			pw, ph := W-1, H-1
			for R := range H {
				for C := range W {
					for r := -7; r <= 7; r++ {
						for c := -7; c <= 7; c++ {
							if c == 0 && r == 0 {
								continue // the observer's own sample: never inside an arc
							}
							segs := m.regionPoint(c, r, nil)
							if v == 3 && len(segs) != 1 && c != 0 && r != 0 {
								t.Errorf("v3: sample (%d,%d) has %d entries, want 1 off the axes", c, r, len(segs))
							}
							in := false
							for _, s := range segs {
								if s.pt != ptPoint || s.ua != s.ub || s.va != s.vb || int(s.px)+int(s.ua) != c || int(s.py)+int(s.va) != r {
									t.Fatalf("v%d: sample (%d,%d): entry %+v is another point", v, c, r, s)
								}
								qx, qy := C+int(s.px), R+int(s.py)
								in = in || (qx >= 0 && qy >= 0 && qx < pw && qy < ph)
							}
							X, Y := C+c, R+r
							if want := X >= 0 && Y >= 0 && X < W && Y < H; in != want {
								t.Errorf("v%d, %d×%d grid, observer (%d,%d), sample (%d,%d): an entry inside %v, the sample inside %v", v, W, H, C, R, c, r, in, want)
							}
						}
					}
				}
			}
		}
	}
}
