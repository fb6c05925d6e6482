package interest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
)

// TestJointGuarantee walks players over real windows and checks every tick
// of the joint frontier: each player is inside its side, of level at most
// MaxLevel; a silent pair's sides are disjoint, certified mutually hidden by
// the store (they or quads holding them), and by the exact viewsheds
// neither player sees the other nor does any cell of one side (up to 64
// sampled per side) see a cell of the other; an open pair sends
// exactly where the receiver may see the sender by the store; exits are the
// players that left their side; the packets add up.
func TestJointGuarantee(t *testing.T) {
	for _, wc := range guaranteeWorlds {
		w := newWorld(t, wc.name, wc.win, wc.nodes)
		for _, c := range []struct {
			opt      JointOptions
			n, ticks int
			noTable  bool // the region memo without its table, as on large grids (regionRow's quads of regions)
		}{{JointOptions{}, 12, 300, false}, {JointOptions{MaxLevel: 2}, 12, 300, false}, {JointOptions{}, 48, 60, false},
			{JointOptions{Regions: 1}, 12, 300, false}, {JointOptions{Regions: 1}, 48, 60, false}, {JointOptions{Regions: 1}, 48, 60, true},
			{JointOptions{Far: -1}, 12, 300, false}, {JointOptions{Far: 2}, 48, 60, false}, {JointOptions{Far: 2}, 48, 60, true}} {
			opt, n, ticks := c.opt, c.n, c.ticks
			t.Run(fmt.Sprintf("%s/cap%d/L%d/R%d/F%d/%d/notable=%v", wc.name, wc.nodes, opt.MaxLevel, opt.Regions, opt.Far, n, c.noTable), func(t *testing.T) {
				jt, err := NewJoint(w.gr, n, opt)
				if err != nil {
					t.Fatal(err)
				}
				if c.noTable {
					jt.memo.table = nil
				}
				maxL := opt.MaxLevel
				if maxL == 0 {
					maxL = 6
				}
				rng := rand.New(rand.NewPCG(5, 6))
				ps := make([]Player, n)
				walk(rng, w.s.Width, w.s.Height, ps)
				prev := make([]grow.Quad, n)
				silent, exits, high := 0, 0, 0
				for tk := range ticks {
					walk(rng, w.s.Width, w.s.Height, ps)
					wantExits := 0
					for i, p := range ps {
						if tk == 0 || !prev[i].Holds(p.Col, p.Row) {
							wantExits++
						}
					}
					res, err := jt.Tick(ps)
					if err != nil {
						t.Fatal(err)
					}
					if res.Exits != wantExits || res.Downlinks < res.Exits || res.Downlinks > n || res.Messages < res.Downlinks {
						t.Fatalf("tick %d: %d exits (want %d), %d downlinks, %d messages", tk, res.Exits, wantExits, res.Downlinks, res.Messages)
					}
					exits += res.Exits
					updates, open := 0, 0
					for i, p := range ps {
						q := jt.Side(i)
						prev[i] = q
						if !q.Holds(p.Col, p.Row) || q.Level > maxL || opt.Regions > 0 && q.Level != opt.Regions {
							t.Fatalf("tick %d: player %d at %v outside its side %+v (max level %d)", tk, i, p, q, maxL)
						}
						if q.Level >= 2 {
							high++
						}
					}
					for i := range n {
						for j := i + 1; j < n; j++ {
							a, b := ps[i], ps[j]
							if jt.Silent(i, j) != jt.Silent(j, i) {
								t.Fatalf("tick %d: silence of %d,%d not symmetric", tk, i, j)
							}
							if jt.Silent(i, j) {
								silent++
								si, sj := jt.Side(i), jt.Side(j)
								if !certified(w.gr, si, sj) || si.Overlaps(sj) || w.sees(a, b) || w.sees(b, a) || jt.Sends(i, j) || jt.Sends(j, i) {
									t.Fatalf("tick %d: silent pair %d,%d at %v, %v: sides %+v %+v certified %v, sees %v/%v",
										tk, i, j, a, b, si, sj, certified(w.gr, si, sj), w.sees(a, b), w.sees(b, a))
								}
								if c, ok := w.sidesSee(si, sj); ok {
									t.Fatalf("tick %d: silent pair %d,%d: cells %v of sides %+v %+v see each other", tk, i, j, c, si, sj)
								}
								continue
							}
							open++
							for _, d := range [][2]int{{i, j}, {j, i}} {
								s, r := ps[d[0]], ps[d[1]]
								may := s.Col == r.Col && s.Row == r.Row
								if !may {
									may, _ = w.gr.MaySee([2]int{r.Col, r.Row}, [2]int{s.Col, s.Row})
								}
								if jt.Sends(d[0], d[1]) != may || (w.sees(r, s) && !may) {
									t.Fatalf("tick %d: %d sends to %d: %v, may see %v, sees %v", tk, d[0], d[1], jt.Sends(d[0], d[1]), may, w.sees(r, s))
								}
								if may {
									updates++
								}
							}
						}
					}
					if res.Open != open || res.Updates != updates ||
						res.Packets() != res.Exits+res.Downlinks+res.Updates+res.Announcements+res.Flips {
						t.Fatalf("tick %d: %+v, want %d open, %d updates", tk, res, open, updates)
					}
					// The coordinator's downlinks: one to each client told,
					// their bytes its output.
					var answers, told int64
					for i, b := range res.Answer {
						answers += b
						if res.Told[i] != (b > 0) || b > res.Down[i] {
							t.Fatalf("tick %d: client %d told %v, answer %d B of %d B down", tk, i, res.Told[i], b, res.Down[i])
						}
						if res.Told[i] {
							told++
						}
					}
					if answers != res.ServerOut || told != int64(res.Downlinks) {
						t.Fatalf("tick %d: answers %d B to %d clients, coordinator out %d B, %d downlinks", tk, answers, told, res.ServerOut, res.Downlinks)
					}
				}
				// The walk must exercise the scheme: silent pairs, exits after the
				// first tick, sides above the cells (grown: not region quads).
				if silent == 0 || exits <= n || high == 0 && opt.Regions == 0 {
					t.Errorf("%d silent pair-ticks, %d exits, %d player-ticks on sides of level ≥ 2", silent, exits, high)
				}
				t.Logf("%d silent pair-ticks of %d, %d exits, %d player-ticks on level ≥ 2", silent, ticks*n*(n-1)/2, exits, high)
			})
		}
	}
}

// certified reports whether p and q are disjoint and each is hidden by the
// store's PVS of a quad holding the other (that quad or an ancestor): the
// coordinator certifies a side by its own PVS and by the PVS of a quad
// holding a run of sides.
func certified(gr *grow.Grower, p, q grow.Quad) bool {
	hiddenBy := func(p, q grow.Quad) bool {
		for a := p; a.Level <= gr.Geometry().K; a = a.Parent() {
			if gr.Hides(a, q) {
				return true
			}
		}
		return false
	}
	return !p.Overlaps(q) && hiddenBy(p, q) && hiddenBy(q, p)
}

// sidesSee looks for a cell of quad p and one of quad q (inside the grid)
// that see each other, either way, by the exact viewsheds: every pair when
// both hold at most 64 cells, otherwise 64 cells of each spread along the
// quad in Morton order.
func (w *world) sidesSee(p, q grow.Quad) ([2][2]int, bool) {
	cells := func(s grow.Quad) [][2]int {
		var cs [][2]int
		n := s.Size() * s.Size()
		step := max(1, n/64)
		for k := 0; k < n; k += step {
			x, y := 0, 0
			for b := 0; k>>(2*b) != 0; b++ {
				x |= (k >> (2 * b) & 1) << b
				y |= (k >> (2*b + 1) & 1) << b
			}
			if c, r := s.Col()+x, s.Row()+y; c < w.s.Width && r < w.s.Height {
				cs = append(cs, [2]int{c, r})
			}
		}
		return cs
	}
	for _, a := range cells(p) {
		for _, b := range cells(q) {
			pa, pb := Player{Col: a[0], Row: a[1]}, Player{Col: b[0], Row: b[1]}
			if w.sees(pa, pb) || w.sees(pb, pa) {
				return [2][2]int{a, b}, true
			}
		}
	}
	return [2][2]int{}, false
}

func TestJointBadInput(t *testing.T) {
	w := newWorld(t, "N44W072.hgt", heightmap.Window{Col: 820, Row: 850, Width: 20, Height: 18}, 0)
	if _, err := NewJoint(w.gr, 1, JointOptions{}); err == nil {
		t.Error("1 player accepted")
	}
	if _, err := NewJoint(w.gr, MaxJointPlayers+1, JointOptions{}); err == nil {
		t.Error("too many players accepted")
	}
	if _, err := NewJoint(w.gr, 3, JointOptions{MaxLevel: -1}); err == nil {
		t.Error("max level -1 accepted")
	}
	jt, _ := NewJoint(w.gr, 2, JointOptions{})
	if _, err := jt.Tick([]Player{{}}); !errors.Is(err, ErrPlayers) {
		t.Errorf("one player of two: %v", err)
	}
	if _, err := jt.Tick([]Player{{}, {Col: 20}}); !errors.Is(err, grow.ErrOutside) {
		t.Errorf("player off the grid: %v", err)
	}
}
