package interest

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
)

// nodataWorld is a small real window whose Grower marks a block of cells
// nodata (rows 0–5 of columns 8–11), as a DEM with a void would.
func nodataWorld(t *testing.T) (*grow.Grower, func(c, r int) bool) {
	t.Helper()
	w := newWorld(t, "N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 20, Height: 18}, 0)
	nd := make([]bool, w.s.Width*w.s.Height)
	void := func(c, r int) bool { return c >= 8 && c < 12 && r < 6 }
	for i := range nd {
		nd[i] = void(i%w.s.Width, i/w.s.Width)
	}
	gr, err := grow.New(w.s.Hierarchy, w.s.Elev, nd)
	if err != nil {
		t.Fatal(err)
	}
	return gr, void
}

// badTicks walks players off the void and, every third tick, offers the
// manager a tick with one player on a void cell first; tick reports the
// error of a tick and fills what the twin compares.
func badTicks(t *testing.T, void func(c, r int) bool, n int, tick func(ps []Player, bad bool) error) {
	rng := rand.New(rand.NewPCG(5, 75))
	ps := make([]Player, n)
	for k := range ps {
		ps[k] = Player{Col: 2 + k, Row: 12}
	}
	for it := range 60 {
		walk(rng, 20, 18, ps)
		for k := range ps {
			if void(ps[k].Col, ps[k].Row) {
				ps[k] = Player{Col: 2 + k, Row: 12}
			}
		}
		if it%3 == 1 {
			bad := slices.Clone(ps)
			bad[rng.IntN(n)] = Player{Col: 8 + rng.IntN(4), Row: rng.IntN(6)}
			if err := tick(bad, true); !errors.Is(err, grow.ErrNodata) {
				t.Fatalf("tick %d, a player on a void: %v, want ErrNodata", it, err)
			}
		}
		if err := tick(ps, false); err != nil {
			t.Fatalf("tick %d: %v", it, err)
		}
	}
}

// TestJointBadTickChangesNothing: a tick refused for a player on a nodata
// cell leaves the Joint as it was — every later tick answers as a Joint
// that never saw it — and is refused whatever the other players do (it was
// found only when that player left its side, after half the state had
// moved: 1 exit and 16 packets against a fresh Joint's 0 and 12).
func TestJointBadTickChangesNothing(t *testing.T) {
	gr, void := nodataWorld(t)
	const n = 6
	jt, _ := NewJoint(gr, n, JointOptions{})
	twin, _ := NewJoint(gr, n, JointOptions{})
	tick := 0
	badTicks(t, void, n, func(ps []Player, bad bool) error {
		r, err := jt.Tick(ps)
		if bad || err != nil {
			return err
		}
		tick++
		got := [3]int{r.Exits, r.Open, r.Packets()}
		r2, err := twin.Tick(ps)
		if err != nil {
			return err
		}
		if want := [3]int{r2.Exits, r2.Open, r2.Packets()}; got != want {
			t.Errorf("tick %d: exits, open pairs, packets %v; a Joint that saw no bad tick %v", tick, got, want)
		}
		for i := range n {
			for j := range n {
				if i != j && jt.Sends(i, j) != twin.Sends(i, j) {
					t.Errorf("tick %d: Sends(%d,%d) %v, the twin %v", tick, i, j, jt.Sends(i, j), twin.Sends(i, j))
				}
			}
		}
		return nil
	})
}

// TestManagerBadTickChangesNothing: the per-pair Manager likewise.
func TestManagerBadTickChangesNothing(t *testing.T) {
	gr, void := nodataWorld(t)
	const n = 5
	m, _ := New(gr, n, Options{})
	twin, _ := New(gr, n, Options{})
	tick := 0
	badTicks(t, void, n, func(ps []Player, bad bool) error {
		r, err := m.Tick(ps)
		if bad || err != nil {
			return err
		}
		tick++
		got := slices.Clone(r.Exchanges)
		r2, err := twin.Tick(ps)
		if err != nil {
			return err
		}
		if !slices.Equal(got, r2.Exchanges) {
			t.Errorf("tick %d: exchanges %v; a Manager that saw no bad tick %v", tick, got, r2.Exchanges)
		}
		return nil
	})
}
