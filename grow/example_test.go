package grow_test

import (
	"bufio"
	"fmt"
	"os"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
)

// A game server opens a store once, shares one Grower between its
// goroutines and gives each goroutine its own Scratch and Result.
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
	var scratch grow.Scratch // one per goroutine, reused across queries
	var res grow.Result
	if err := gr.Grow([2]int{0, 0}, [2]int{8, 6}, grow.Options{}, &scratch, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(store.Width, store.Height, res.MutuallyVisible || res.A.Contains(0, 0))
	// Output: 9 7 true
}
