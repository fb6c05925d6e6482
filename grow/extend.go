package grow

import (
	"fmt"
	"slices"

	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Extend adds cell c (col,row) to one side of the frontier set r (side 0:
// r.A, 1: r.B) when, by the store's PVSs, c sees no cell of the other side
// and no cell of the other side sees c: c's per-point PVS marks each of the
// other side's quads hidden and each quad's PVS marks c hidden. The result
// is still a frontier set, and the other side is unchanged, so a player who
// stepped out of its side can keep the frontier without telling the other
// (interest.Options.Extend). It reports whether c was added; a cell already
// in the side is reported added. Cost: two quad lookups per quad of the
// other side. Errors: ErrOutside, ErrNodata; ErrOptions when r holds no
// frontier set (MutuallyVisible) or side is not 0 or 1.
func (gr *Grower) Extend(r *Result, side int, c [2]int) (_ bool, err error) {
	defer fault.Recover(&err, fault.Arm())
	if err := gr.CheckCell(c); err != nil {
		return false, err
	}
	if r.MutuallyVisible || side < 0 || side > 1 {
		return false, fmt.Errorf("%w: extending side %d of a result without a frontier set", ErrOptions, side)
	}
	f, other := &r.A, &r.B
	if side == 1 {
		f, other = other, f
	}
	if f.Contains(c[0], c[1]) {
		return true, nil
	}
	if other.Contains(c[0], c[1]) {
		return false, nil
	}
	g := gr.g
	tc := gr.pvs(Quad{0, c[0], c[1]})
	for _, q := range other.Quads {
		if tc.QuadStatus(g, q.Level, q.X, q.Y) != quadpvs.Hidden {
			return false, nil
		}
		if tq := gr.pvs(q); tq.QuadStatus(g, 0, c[0], c[1]) != quadpvs.Hidden {
			return false, nil
		}
	}
	m := quadpvs.MortonCode(c[0], c[1])
	k, _ := slices.BinarySearch(f.morton, m)
	f.morton = slices.Insert(f.morton, k, m)
	f.Quads = slices.Insert(f.Quads, k, Quad{0, c[0], c[1]})
	f.Points++
	return true, nil
}
