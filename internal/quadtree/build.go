package quadtree

import (
	"fmt"
	"math/bits"

	"github.com/frontiersets/frontiersets/horizon"
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

// laneStatus is the code of the lane bit in classes (hid, vis): both set
// outside the terrain.
func laneStatus(hid, vis, bit uint16) Status {
	h, v := Status(0), Status(0)
	if hid&bit != 0 {
		h = 1
	}
	if vis&bit != 0 {
		v = 1
	}
	// (h,v): (1,0) Hidden, (0,1) Visible, (0,0) Unknown, (1,1) Outside.
	return v | (h^v^1)<<1
}

// EncodeBlockTrees builds into dst (reusing its memory) trees of a block of
// observers (horizon.BlockWorker.Classify) in one pass over its groups:
// dst[b], for every lane b in lanes, is the PVS of the point (blk.Col +
// b%4, blk.Row + b/4); dst[horizon.Lanes+j], for every union j in unions
// (bit j), that of union j of the block (0…3: the level-1 quads in Morton
// order, 4: the level-2 quad, §3.2); the other entries are left as they
// are. The Block lists its quads' classes in code order, so each tree is
// byte for byte what EncodeLevels gives for the point's Classify pyramid
// (or what merging and normalising the points' trees gives for a union).
// It is independent of the Encoder's state (safe to call on any Encoder).
func (e *Encoder) EncodeBlockTrees(blk *horizon.Block, lanes uint16, unions uint8, dst *[horizon.Lanes + horizon.Unions]Tree) {
	encodeBlock(blk, lanes, unions, dst, false)
}

// BlockVisibleCells sets dst[b], for every lane b in lanes, to the terrain
// cells visible from lane b's observer in blk: the visible cells of the
// tree EncodeBlockTrees writes for the lane, counted from the block's
// groups without building trees (a total viewshed for a few operations
// per group). The other entries of dst are set to 0. It uses the
// Encoder's scratch: not safe for concurrent use.
func (e *Encoder) BlockVisibleCells(blk *horizon.Block, lanes uint16, dst *[horizon.Lanes]int) {
	g := e.g
	*dst = [horizon.Lanes]int{}
	open := uint16(0) // lanes whose root is Unknown
	for m := lanes; m != 0; m &= m - 1 {
		b := bits.TrailingZeros16(m)
		switch laneStatus(blk.Root.Hid, blk.Root.Vis, 1<<b) {
		case Visible:
			dst[b] = g.Width * g.Height
		case Unknown:
			open |= 1 << b
		}
	}
	if open == 0 {
		return
	}
	// The groups of a depth follow the Morton order of their parents, the
	// quads Unknown at the depth above for some lane or union: cur holds
	// those parents' positions, next collects the children that will be.
	cur, next := append(e.cur[:0], quadPos{}), e.next[:0]
	for _, gs := range blk.Groups {
		if len(gs) != len(cur) {
			panic(fmt.Sprintf("quadpvs: a block's depth of %d groups under %d mixed quads", len(gs), len(cur)))
		}
		for i := range gs {
			grp := &gs[i]
			p := cur[i]
			for k := range 4 {
				c := p.child(k)
				if g.outside(c) {
					continue
				}
				cl, ul := grp.Child[k], grp.UChild[k]
				if m := cl.Vis &^ cl.Hid & grp.Lanes & open; m != 0 {
					n := g.cellsIn(c)
					for ; m != 0; m &= m - 1 {
						dst[bits.TrailingZeros16(m)] += n
					}
				}
				if ^(cl.Hid|cl.Vis)&grp.Lanes != 0 || ^(ul.Hid|ul.Vis)&grp.Unions != 0 {
					next = append(next, c)
				}
			}
		}
		cur, next = next, cur[:0]
	}
	e.cur, e.next = cur[:0], next[:0]
}

// EncodeBlockTruncated is EncodeBlockTrees for the trees truncated at level
// 1 (horizon.BlockGroup): every mixed level-1 quad visible, then every quad
// whose children are all visible, up. The §3.4 cap reaches that tree after
// collapsing every group of cells, so where it binds further it continues
// from there exactly as from the whole tree, with fewer codes to go through
// (Capper).
func (e *Encoder) EncodeBlockTruncated(blk *horizon.Block, lanes uint16, unions uint8, dst *[horizon.Lanes + horizon.Unions]Tree) {
	encodeBlock(blk, lanes, unions, dst, true)
}

func encodeBlock(blk *horizon.Block, lanes uint16, unions uint8, dst *[horizon.Lanes + horizon.Unions]Tree, trunc bool) {
	var ws [horizon.Lanes + horizon.Unions]writer
	rootVis, uRootVis := blk.Root.Vis, blk.URoot.Vis
	if trunc {
		rootVis, uRootVis = blk.TRoot, blk.UTRoot
	}
	open := lanes // lanes whose root is Unknown
	for b := range horizon.Lanes {
		if lanes&(1<<b) == 0 {
			continue
		}
		ws[b] = newWriter(&dst[b])
		root := laneStatus(blk.Root.Hid, rootVis, 1<<b)
		ws[b].put(root)
		if root != Unknown {
			open &^= 1 << b
		}
	}
	uopen := unions
	for j := range horizon.Unions {
		if unions&(1<<j) == 0 {
			continue
		}
		w := &ws[horizon.Lanes+j]
		*w = newWriter(&dst[horizon.Lanes+j])
		root := laneStatus(uint16(blk.URoot.Hid), uint16(uRootVis), 1<<j)
		w.put(root)
		if root != Unknown {
			uopen &^= 1 << j
		}
	}
	for _, gs := range blk.Groups {
		for i := range gs {
			g := &gs[i]
			gl, gu, vis, uvis := g.Lanes, g.Unions, &[4]uint16{g.Child[0].Vis, g.Child[1].Vis, g.Child[2].Vis, g.Child[3].Vis}, &[4]uint8{g.UChild[0].Vis, g.UChild[1].Vis, g.UChild[2].Vis, g.UChild[3].Vis}
			if trunc {
				gl, gu, vis, uvis = g.TLanes, g.TUnions, &g.TVis, &g.UTVis
			}
			if m := gl & open; m != 0 {
				// Byte b of lo (lanes 0–7) and hi (8–15): lane b's four codes.
				var lo, hi uint64
				for k, c := range g.Child {
					v := vis[k]
					code := ^(c.Hid ^ v) // the codes' high bits: Unknown or Outside
					lo |= spread8[v&0xff]<<(2*k) | spread8[code&0xff]<<(2*k+1)
					hi |= spread8[v>>8]<<(2*k) | spread8[code>>8]<<(2*k+1)
				}
				for ; m != 0; m &= m - 1 {
					b := bits.TrailingZeros16(m)
					w := lo
					if b >= 8 {
						w = hi
					}
					ws[b].put4(uint(w >> (8 * (b & 7)) & 0xff))
				}
			}
			if m := gu & uopen; m != 0 {
				var u uint64
				for k, c := range g.UChild {
					v := uvis[k]
					u |= spread8[v]<<(2*k) | spread8[^(c.Hid^v)]<<(2*k+1)
				}
				for ; m != 0; m &= m - 1 {
					j := bits.TrailingZeros8(m)
					ws[horizon.Lanes+j].put4(uint(u >> (8 * j) & 0xff))
				}
			}
		}
	}
	for b := range horizon.Lanes {
		if lanes&(1<<b) != 0 {
			ws[b].finish()
		}
	}
	for j := range horizon.Unions {
		if unions&(1<<j) != 0 {
			ws[horizon.Lanes+j].finish()
		}
	}
}

// spread8[x] has bit i of x at bit 8i: one bit per byte, for writing the
// codes of eight lanes at once.
var spread8 = func() (t [256]uint64) {
	for x := range t {
		for i := range 8 {
			t[x] |= uint64(x>>i&1) << (8 * i)
		}
	}
	return t
}()
