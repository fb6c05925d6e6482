package quadpvs

import (
	"fmt"

	"frontiersets/horizon"
)

// Encoder turns per-point visibility bitmaps into predictive quadtrees
// (§3.2): leaves from the bitmap, then from the finest level to the root a
// quad whose terrain children are all visible (or all hidden) takes their
// status, others are Unknown. It keeps a status pyramid as scratch, so one
// Encoder per goroutine encodes without allocating; it is not safe for
// concurrent use.
type Encoder struct {
	g     Geometry
	level horizon.Levels // level[l]: status of each quad of level l, row-major over QuadsAcross(l)
	cur   []quadPos
	next  []quadPos
}

// NewEncoder returns an Encoder for terrains of geometry g.
func NewEncoder(g Geometry) *Encoder {
	return &Encoder{g: g, level: horizon.NewLevels(g.Width, g.Height)}
}

// Encode builds the tree of bm into dst (reusing its memory) in time linear
// in the cells. bm must have the geometry's size.
func (e *Encoder) Encode(bm horizon.Bitmap, dst *Tree) error {
	g := e.g
	if bm.Width != g.Width || bm.Height != g.Height {
		return fmt.Errorf("quadpvs: bitmap of %d×%d cells for a %d×%d geometry", bm.Width, bm.Height, g.Width, g.Height)
	}
	cells := e.level[0]
	for i := range cells {
		cells[i] = uint8(bm.Words[i>>6] >> (uint(i) & 63) & 1)
	}
	e.pyramid()
	e.emit(e.level, dst)
	return nil
}

// EncodeLevels builds into dst (reusing its memory) the tree of a status
// pyramid filled top-down by horizon.Worker.Classify: from the root, every
// quad reached is Hidden, Visible or Unknown (horizon's QuadHidden,
// QuadVisible, QuadMixed codes), and the children of an Unknown quad inside
// the terrain are all set; a quad is Unknown exactly when its terrain cells
// differ (the canonical tree). Time is linear in the tree's codes. Errors:
// lv of another size than the geometry's.
func (e *Encoder) EncodeLevels(lv horizon.Levels, dst *Tree) error {
	g := e.g
	if len(lv) != g.Levels() || len(lv[0]) != g.Width*g.Height {
		return fmt.Errorf("quadpvs: pyramid of %d levels for a %d×%d geometry", len(lv), g.Width, g.Height)
	}
	e.emit(lv, dst)
	return nil
}

// pyramid fills levels 1…K from level 0.
func (e *Encoder) pyramid() {
	g := e.g
	for l := 1; l < g.Levels(); l++ {
		cc, cr := g.QuadsAcross(l - 1)
		pc, pr := g.QuadsAcross(l)
		child, parent := e.level[l-1], e.level[l]
		for y := range pr {
			y0, y1 := 2*y, min(2*y+1, cr-1)
			for x := range pc {
				x0, x1 := 2*x, min(2*x+1, cc-1)
				// Children past the terrain's edge repeat an inside one: a
				// don't-care that never breaks agreement.
				a, b := child[y0*cc+x0], child[y0*cc+x1]
				c, d := child[y1*cc+x0], child[y1*cc+x1]
				s := uint8(Unknown)
				if a == b && a == c && a == d && a != uint8(Unknown) {
					s = a
				}
				parent[y*pc+x] = s
			}
		}
	}
}

// emit writes the pyramid lv breadth-first into dst.
func (e *Encoder) emit(lv horizon.Levels, dst *Tree) {
	g := e.g
	w := newWriter(dst)
	root := Status(lv[g.K][0])
	w.put(root)
	e.cur = e.cur[:0]
	if root == Unknown {
		e.cur = append(e.cur, quadPos{})
	}
	for l := g.K - 1; len(e.cur) > 0; l-- {
		cc, cr := g.QuadsAcross(l)
		st := lv[l]
		e.next = e.next[:0]
		for _, p := range e.cur {
			for k := range 4 {
				x, y := 2*p.x+k&1, 2*p.y+k>>1
				if x >= cc || y >= cr {
					w.put(Outside)
					continue
				}
				s := Status(st[y*cc+x])
				w.put(s)
				if s == Unknown {
					e.next = append(e.next, quadPos{g.K - l, x, y})
				}
			}
		}
		e.cur, e.next = e.next, e.cur
	}
	w.finish()
}
