package interest_test

import (
	"bufio"
	"fmt"
	"os"

	"frontiersets/compress"
	"frontiersets/grow"
	"frontiersets/interest"
	"frontiersets/quadpvs"
)

// A game server keeps one Manager per match. Each tick it passes every
// player's cell and forwards updates only between the pairs Tick returns;
// every other pair holds a frontier set and needs nothing.
func Example() {
	f, err := os.Open("../compress/testdata/small.pvs")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, _ := f.Stat()
	store, err := compress.DecodeSize(bufio.NewReader(f), st.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	gr, err := grow.New(store.Hierarchy, store.Elev, store.Nodata)
	if err != nil {
		fmt.Println(err)
		return
	}
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
	// tick 0: 0↔1 (visible) 0↔2 (visible) 1↔2 (start), 1 frontier sets grown
	// tick 1: 0↔1 (start) 0↔2 (start), 2 frontier sets grown
	// tick 2: 0↔2 (visible), 0 frontier sets grown
	// tick 3: 0↔1 (visible) 0↔2 (start), 1 frontier sets grown
	// tick 4: 0↔1 (start), 1 frontier sets grown
	// tick 5: no exchange, 0 frontier sets grown
}
