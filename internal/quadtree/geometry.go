package quadtree

import (
	"fmt"
	"math/bits"
)

// Geometry is the quadtree geometry of a Width×Height terrain: the square of
// side 2^K that covers it (see the package comment). Levels count up from
// the cells: a quad of level l has side 2^l cells and depth K-l.
type Geometry struct {
	Width, Height int // terrain size in cells
	K             int // root side is 2^K cells
}

// NewGeometry returns the geometry of a width×height terrain.
func NewGeometry(width, height int) (Geometry, error) {
	if width <= 0 || height <= 0 || width > 1<<15 || height > 1<<15 {
		return Geometry{}, fmt.Errorf("quadpvs: terrain of %d×%d cells, want 1 to 32768 on a side", width, height)
	}
	k := bits.Len(uint(max(width, height) - 1))
	return Geometry{Width: width, Height: height, K: k}, nil
}

// Levels returns the number of quad levels, cells (level 0) to root (K).
func (g Geometry) Levels() int { return g.K + 1 }

// QuadsAcross returns how many quads of level l intersect the terrain per row
// and per column: ⌈Width/2^l⌉ × ⌈Height/2^l⌉.
func (g Geometry) QuadsAcross(l int) (cols, rows int) {
	s := 1 << l
	return (g.Width + s - 1) / s, (g.Height + s - 1) / s
}

// quadPos is a quad by depth below the root and its column and row among the
// quads of that depth.
type quadPos struct {
	depth int
	x, y  int
}

func (p quadPos) child(k int) quadPos {
	return quadPos{p.depth + 1, 2*p.x + k&1, 2*p.y + k>>1}
}

// outside reports whether the quad lies wholly outside the terrain.
func (g Geometry) outside(p quadPos) bool {
	s := g.K - p.depth
	return p.x<<s >= g.Width || p.y<<s >= g.Height
}

// straddles reports whether quad p holds terrain cells and cells beyond
// the terrain's edge.
func (g Geometry) straddles(p quadPos) bool {
	s := g.K - p.depth
	return !g.outside(p) && ((p.x+1)<<s > g.Width || (p.y+1)<<s > g.Height)
}

// cellsIn returns the number of terrain cells in the quad.
func (g Geometry) cellsIn(p quadPos) int {
	s := g.K - p.depth
	x0, y0 := p.x<<s, p.y<<s
	w := min(x0+1<<s, g.Width) - x0
	h := min(y0+1<<s, g.Height) - y0
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// MortonCode returns the Morton (Z-order) code of cell (col,row): the bits
// of col at the even positions, those of row at the odd ones, so that the
// quad of level l at (x,y) holds exactly the cells whose codes lie in
// [MortonCode(x<<l, y<<l), +4^l) — the order of a tree's children
// (top-left, top-right, bottom-left, bottom-right). col and row must lie in
// 0…2^32-1.
func MortonCode(col, row int) uint64 {
	return spread(uint64(col)) | spread(uint64(row))<<1
}

// spread moves bit i of v's low 32 bits to bit 2i.
func spread(v uint64) uint64 {
	v &= 0xffffffff
	v = (v | v<<16) & 0x0000ffff0000ffff
	v = (v | v<<8) & 0x00ff00ff00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f0f0f0f0f
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}
