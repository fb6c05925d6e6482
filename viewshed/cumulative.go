// Package viewshed reads a baked PVS store as a viewshed database: the
// cumulative viewshed of many observers (how many of them may see each
// cell), each observer's viewshed being its stored PVS (thesis §3.2), one
// tree walk instead of a line-of-sight pass over the DEM.
//
// A stored PVS is conservative: a cell it marks hidden is hidden from the
// observer (under the store's visibility model, at its observer and target
// heights); a cell it marks visible may be visible, or hidden where a cap
// (§3.4) collapsed a mixed quad. So a cumulative count is an upper bound of
// the observers that see a cell, and a cell counted by no observer is
// seen by none.
package viewshed

import (
	"errors"
	"fmt"
	"sync"

	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Cumulative counts, for every cell of a terrain, the PVSs added to it that
// may see the cell (Visible, or Unknown where a tree stops above the cells).
// Adding a PVS costs time in proportion to its leaves, not to the terrain's
// area: a leaf adds one to its quad's counter, and Counts pushes the quads'
// counters down to the cells once. Memory: 4 bytes per quad intersecting the
// terrain, about 5.4 bytes per cell. A Cumulative is not safe for
// concurrent use; Merge joins the counts of several.
type Cumulative struct {
	g      quadpvs.Geometry
	w      quadpvs.Walker
	levels [][]uint32 // levels[l][y*cols+x]: PVSs with a leaf at quad (l,x,y); cols from g.QuadsAcross(l)
	cols   []int
	n      int
}

// NewCumulative returns an empty count over terrain geometry g.
func NewCumulative(g quadpvs.Geometry) *Cumulative {
	c := &Cumulative{g: g, levels: make([][]uint32, g.Levels()), cols: make([]int, g.Levels())}
	for l := range c.levels {
		cols, rows := g.QuadsAcross(l)
		c.levels[l] = make([]uint32, cols*rows)
		c.cols[l] = cols
	}
	return c
}

// Add counts PVS t, a tree of the Cumulative's geometry.
func (c *Cumulative) Add(t *quadpvs.Tree) {
	c.w.Leaves(c.g, t, func(s quadpvs.Status, l, x, y int) {
		if s != quadpvs.Hidden {
			c.levels[l][y*c.cols[l]+x]++
		}
	})
	c.n++
}

// Observers returns the number of PVSs added (Merge included).
func (c *Cumulative) Observers() int { return c.n }

// Merge adds o's counts to c's. Errors: o of another geometry.
func (c *Cumulative) Merge(o *Cumulative) error {
	if o.g != c.g {
		return fmt.Errorf("viewshed: merging counts of a %d×%d terrain into a %d×%d one", o.g.Width, o.g.Height, c.g.Width, c.g.Height)
	}
	for l := range c.levels {
		for i, v := range o.levels[l] {
			c.levels[l][i] += v
		}
	}
	c.n += o.n
	return nil
}

// Counts returns the count of every cell, row-major (index row·Width+col),
// in dst if it holds Width·Height values (else in a new slice). It leaves
// c unchanged.
func (c *Cumulative) Counts(dst []uint32) []uint32 {
	g := c.g
	if len(dst) != g.Width*g.Height {
		dst = make([]uint32, g.Width*g.Height)
	}
	// Push each level's counters down one level at a time, from the root;
	// level 0 is the cells.
	cur := c.levels[len(c.levels)-1]
	if len(c.levels) == 1 {
		copy(dst, cur)
	}
	for l := len(c.levels) - 1; l > 0; l-- {
		next := dst
		if l > 1 {
			next = make([]uint32, len(c.levels[l-1]))
		}
		copy(next, c.levels[l-1])
		pc, cc := c.cols[l], c.cols[l-1]
		for y := range len(next) / cc {
			src := cur[(y>>1)*pc:]
			row := next[y*cc : (y+1)*cc]
			for x := range row {
				row[x] += src[x>>1]
			}
		}
		cur = next
	}
	return dst
}

// AddCells adds the stored PVS of every cell ([col, row]) of h, on workers
// goroutines (at least 1), each with its own counts merged at the end; h
// must be of c's geometry and safe for concurrent readers (a store's
// hierarchy is). It returns h.Err() (a tree that failed its checks reads
// as hiding nothing), or an error wrapping frontiersets.ErrFault when the store's
// mapped file was truncated or changed while read.
func (c *Cumulative) AddCells(h *quadpvs.Hierarchy, cells [][2]int, workers int) error {
	workers = max(1, min(workers, len(cells)))
	parts := make([]*Cumulative, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		parts[w] = NewCumulative(c.g)
		wg.Go(func() {
			// A store file truncated or changed while read faults: an
			// error wrapping fault.ErrFault, not the process's end.
			defer fault.Recover(&errs[w], fault.Arm())
			for i := w; i < len(cells); i += workers {
				t := h.PVS(h.QuadIndex(0, cells[i][0], cells[i][1]))
				parts[w].Add(&t)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, p := range parts {
		if err := c.Merge(p); err != nil {
			return err
		}
	}
	return h.Err()
}
