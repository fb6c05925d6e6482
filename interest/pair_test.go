package interest

import "testing"

// TestPairTick checks the peer-to-peer protocol's packets against answers
// worked by hand, then properties over every change of directions.
func TestPairTick(t *testing.T) {
	for _, tc := range []struct {
		name      string
		old, d    Dir
		mi, mj    bool
		upd, cell [2]int
	}{
		{"both stay", Both, Both, true, false, [2]int{1, 1}, [2]int{}},
		{"turn round by the sender's move: its stale update", IToJ, JToI, true, false, [2]int{1, 1}, [2]int{}},
		{"a direction added", IToJ, Both, true, false, [2]int{1, 1}, [2]int{}},
		{"j stops: it did not know i moved", Both, IToJ, true, false, [2]int{1, 1}, [2]int{}},
		{"j stops by its own move", Both, IToJ, false, true, [2]int{1, 0}, [2]int{}},
		{"hidden by the sender's move: the receiver tells", IToJ, 0, true, false, [2]int{1, 0}, [2]int{0, 1}},
		{"hidden by the receiver's move: it announces", IToJ, 0, false, true, [2]int{1, 0}, [2]int{0, 1}},
		{"seen after the sender's move", 0, IToJ, true, false, [2]int{1, 0}, [2]int{}},
		{"seen after the receiver's move: it tells", 0, IToJ, false, true, [2]int{1, 0}, [2]int{0, 1}},
		{"both announce", 0, 0, true, true, [2]int{}, [2]int{1, 1}},
		{"hidden by i's move: j's stale update", Both, 0, true, false, [2]int{0, 1}, [2]int{1, 0}},
		{"both moved, turned round", JToI, IToJ, true, true, [2]int{1, 1}, [2]int{}},
	} {
		upd, cell := pairTick(tc.old, tc.d, tc.mi, tc.mj)
		if upd != tc.upd || cell != tc.cell {
			t.Errorf("%s (%d → %d, moved %v %v): updates %v, cells %v; want %v, %v", tc.name, tc.old, tc.d, tc.mi, tc.mj, upd, cell, tc.upd, tc.cell)
		}
	}
	for old := Dir(0); old <= Both; old++ {
		for d := Dir(0); d <= Both; d++ {
			for _, m := range [][2]bool{{true, false}, {false, true}, {true, true}} {
				upd, cell := pairTick(old, d, m[0], m[1])
				for x := range 2 {
					spoke := upd[x]+cell[x] > 0
					switch {
					case d&(IToJ<<x) != 0 && !spoke:
						t.Errorf("%d → %d, moved %v: member %d sends in d but sent nothing", old, d, m, x)
					case d == 0 && m[x] && !spoke:
						t.Errorf("%d → %d, moved %v: member %d moved in a hidden pair and said nothing", old, d, m, x)
					case upd[x]+cell[x] > 2:
						t.Errorf("%d → %d, moved %v: member %d sent %d", old, d, m, x, upd[x]+cell[x])
					}
				}
				if old != 0 && d != 0 && cell != [2]int{} {
					t.Errorf("%d → %d, moved %v: cell messages %v between open directions (a Manager counts only stale updates)", old, d, m, cell)
				}
				for x := range 2 {
					if stale := upd[x] - int(d>>x&1); stale < 0 || stale > 1 {
						t.Errorf("%d → %d, moved %v: member %d sent %d updates", old, d, m, x, upd[x])
					}
				}
				// A member that sent updates under old and did not move
				// while the other did cannot know d before it sends.
				for x := range 2 {
					if old&(IToJ<<x) != 0 && !m[x] && m[1-x] && upd[x] == 0 && cell[x] == 0 {
						t.Errorf("%d → %d, moved %v: member %d stopped without a stale update", old, d, m, x)
					}
				}
			}
		}
	}
}
