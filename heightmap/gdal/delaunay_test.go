package gdal

import (
	"math/rand/v2"
	"testing"
)

// TestDelaunay checks GDAL's triangulation by the empty-circle property on
// random points, the triangle count of a convex position (a square with a
// centre: 4 triangles), and the errors.
func TestDelaunay(t *testing.T) {
	tris, err := Delaunay([]float64{0, 1, 1, 0, 0.5}, []float64{0, 0, 1, 1, 0.5}, nil)
	if err != nil || len(tris) != 4 {
		t.Fatalf("square with centre: %v, %v", tris, err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 300
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = rng.Float64()*100, rng.Float64()*100
	}
	tris, err = Delaunay(x, y, tris[:0])
	if err != nil || len(tris) < n || len(tris) > 2*n {
		t.Fatalf("%d points: %d triangles, %v", n, len(tris), err)
	}
	for _, tr := range tris {
		// The circumcircle of each triangle holds no other point.
		ax, ay, bx, by, cx, cy := x[tr[0]], y[tr[0]], x[tr[1]], y[tr[1]], x[tr[2]], y[tr[2]]
		for p := range n {
			if int32(p) == tr[0] || int32(p) == tr[1] || int32(p) == tr[2] {
				continue
			}
			dx, dy := ax-x[p], ay-y[p]
			ex, ey := bx-x[p], by-y[p]
			fx, fy := cx-x[p], cy-y[p]
			det := (dx*dx+dy*dy)*(ex*fy-fx*ey) - (ex*ex+ey*ey)*(dx*fy-fx*dy) + (fx*fx+fy*fy)*(dx*ey-ex*dy)
			orient := (bx-ax)*(cy-ay) - (by-ay)*(cx-ax)
			if det*orient > 1e-6 {
				t.Fatalf("point %d inside the circumcircle of triangle %v", p, tr)
			}
		}
	}
	if _, err := Delaunay([]float64{0, 1}, []float64{0, 1}, nil); err == nil {
		t.Error("two points triangulated")
	}
	if _, err := Delaunay([]float64{0, 1, 2, 3}, []float64{0, 1, 2, 3}, nil); err == nil {
		t.Error("points on a line triangulated")
	}
}
