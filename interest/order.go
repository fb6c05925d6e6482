package interest

import (
	"slices"
	"sort"

	"github.com/frontiersets/frontiersets/grow"
)

// quadOrder is players sorted by a quad each (a Joint's sides, or its far
// tier's regions): the quads' Morton codes (grow.Quad.Morton, the code of
// the top-left cell) ascending, levels descending among equal codes — the
// order quadpvs.Tree.QuadStatuses wants. The players whose quads lie in a
// quad Q are then a run of it, a quad larger than Q that holds Q at the
// run's start.
type quadOrder struct {
	ord []int32  // the players
	key []uint64 // their quads' Morton codes
	lvl []int8   // their quads' levels
}

// firstAt returns the position of the first quad whose Morton code is at
// least m.
func (o *quadOrder) firstAt(m uint64) int {
	return sort.Search(len(o.key), func(x int) bool { return o.key[x] >= m })
}

// insert puts player i, by its quad q, into the order.
func (o *quadOrder) insert(i int, q grow.Quad) {
	k, l := q.Morton(), int8(q.Level)
	at := sort.Search(len(o.key), func(x int) bool { return o.key[x] > k || o.key[x] == k && o.lvl[x] < l })
	o.ord = slices.Insert(o.ord, at, int32(i))
	o.key = slices.Insert(o.key, at, k)
	o.lvl = slices.Insert(o.lvl, at, l)
}

// remove takes player i, whose quad is q, out of the order.
func (o *quadOrder) remove(i int, q grow.Quad) {
	at := o.firstAt(q.Morton())
	for o.ord[at] != int32(i) {
		at++
	}
	o.ord = slices.Delete(o.ord, at, at+1)
	o.key = slices.Delete(o.key, at, at+1)
	o.lvl = slices.Delete(o.lvl, at, at+1)
}

// holdsRun reports whether every quad of the run key[lo:hi] of the quads in
// Q lies inside Q: none larger than Q (those sit at the run's start, with
// Q's code).
func holdsRun(key []uint64, lvl []int8, Q grow.Quad, lo, hi int) bool {
	m := Q.Morton()
	for x := lo; x < hi && key[x] == m; x++ {
		if int(lvl[x]) > Q.Level {
			return false
		}
	}
	return true
}

// childRuns splits the run key[lo:hi] of the quads in Q (Q.Level ≥ 1) into
// its four children's: child k (at (2Q.X + k&1, 2Q.Y + k>>1)) gets
// key[at[k]:at[k+1]]; a quad larger than a child goes with the first.
func childRuns(key []uint64, Q grow.Quad, lo, hi int) (at [5]int) {
	at[0], at[4] = lo, hi
	for k := 1; k < 4; k++ {
		lim := quadChild(Q, k).Morton() // child k−1's code + its span
		x := at[k-1]
		at[k] = x + sort.Search(hi-x, func(y int) bool { return key[x+y] >= lim })
	}
	return at
}

// quadChild returns child k of quad Q (Q.Level ≥ 1): (2Q.X + k&1,
// 2Q.Y + k>>1) at the level below.
func quadChild(Q grow.Quad, k int) grow.Quad {
	return grow.Quad{Level: Q.Level - 1, X: 2*Q.X + k&1, Y: 2*Q.Y + k>>1}
}
