package interest_test

import (
	"fmt"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// A game server keeps one Manager per match. Each tick it passes every
// player's cell and forwards updates only between the pairs Tick returns;
// every other pair holds a frontier set and needs nothing.
func Example() {
	store, err := frontiersets.Open("../compress/testdata/small.pvs")
	if err != nil {
		fmt.Println(err)
		return
	}
	gr := store.Grower()
	m, err := interest.New(gr, 3, interest.Options{Grow: grow.Options{Merge: quadpvs.Lossy}, Extend: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Player 0 walks east along row 1; the others stand still.
	for tick := range 6 {
		players := []interest.Player{{Col: tick + 1, Row: 1, VCol: 1}, {Col: 8, Row: 6}, {Col: 0, Row: 6}}
		res, err := m.Tick(players)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("tick %d:", tick)
		if len(res.Exchanges) == 0 {
			fmt.Print(" no exchange")
		}
		for _, e := range res.Exchanges {
			fmt.Printf(" %d↔%d (%v)", e.I, e.J, e.Reason)
		}
		fmt.Printf(", %d frontier sets grown\n", res.Queries)
	}
	// Output:
	// tick 0: 0↔1 (start) 0↔2 (start) 1↔2 (start), 3 frontier sets grown
	// tick 1: 0↔1 (left), 1 frontier sets grown
	// tick 2: 0↔2 (left), 1 frontier sets grown
	// tick 3: 0↔1 (left) 0↔2 (left), 2 frontier sets grown
	// tick 4: no exchange, 0 frontier sets grown
	// tick 5: 0↔2 (left), 1 frontier sets grown
}

// A coordinator keeps one Joint per match: each tick it takes every
// player's cell, handles the players that left their sides, and the open
// pairs exchange updates where the receiver may see the sender.
func ExampleJoint() {
	store, err := frontiersets.Open("../compress/testdata/small.pvs")
	if err != nil {
		fmt.Println(err)
		return
	}
	gr := store.Grower()
	jt, err := interest.NewJoint(gr, 3, interest.JointOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Players 0 and 1 stand still; player 2 walks east along row 1.
	for tick := range 6 {
		players := []interest.Player{{Col: 8, Row: 6}, {Col: 0, Row: 6}, {Col: tick + 1, Row: 1}}
		res, err := jt.Tick(players)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("tick %d: %d exits, %d packets; player 2's side: level %d quad (%d,%d); silent:",
			tick, res.Exits, res.Packets(), jt.Side(2).Level, jt.Side(2).X, jt.Side(2).Y)
		for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
			if jt.Silent(p[0], p[1]) {
				fmt.Printf(" %d–%d", p[0], p[1])
			}
		}
		fmt.Println()
	}
	// Output:
	// tick 0: 3 exits, 7 packets; player 2's side: level 0 quad (1,1); silent: 0–1 1–2
	// tick 1: 1 exits, 3 packets; player 2's side: level 0 quad (2,1); silent: 0–1 0–2 1–2
	// tick 2: 1 exits, 3 packets; player 2's side: level 0 quad (3,1); silent: 0–1 1–2
	// tick 3: 1 exits, 4 packets; player 2's side: level 1 quad (2,0); silent: 0–1
	// tick 4: 0 exits, 4 packets; player 2's side: level 1 quad (2,0); silent: 0–1
	// tick 5: 1 exits, 5 packets; player 2's side: level 0 quad (6,1); silent: 0–1 0–2
}
