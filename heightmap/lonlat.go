package heightmap

import (
	"errors"
	"fmt"
	"math"
)

// LonLatGrid places longitude and latitude on a grid's cells without a
// projection library: the WGS 84 longitude and latitude (degrees) of a
// lattice of nodes, computed once through the registered Driver
// (NewLonLatGrid, at bake time) and interpolated between them by
// bicubic Lagrange interpolation (4×4 nodes, exact for cubics, error
// O(step⁴)). A store records it, so that its readers convert lon/lat
// without GDAL.
//
// Positions are fractional cells (u, v) from the grid's top-left corner
// (u = col + 0.5 at the centre of column col), the geotransform's own
// coordinates. Node (i, j), i < Cols, j < Rows, lies at
// u = (i−1)·StepU, v = (j−1)·StepV — one node beyond each edge, so that
// every position on the grid is interpolated — and its longitude and
// latitude are Degrees[2(j·Cols+i)] and Degrees[2(j·Cols+i)+1]. Longitudes
// are unwrapped (neighbours differ by less than 180°), so a grid across
// the antimeridian holds values beyond ±180.
//
// Its methods are safe for concurrent use.
type LonLatGrid struct {
	Cols    int       `json:"cols"`
	Rows    int       `json:"rows"`
	StepU   float64   `json:"step_u"` // cells between node columns
	StepV   float64   `json:"step_v"` // cells between node rows
	Degrees []float64 `json:"degrees"`
	// MaxErrorM is the largest distance in metres between the driver's
	// answer and the interpolation over the points NewLonLatGrid checked
	// (every node cell's centre and edge midpoints).
	MaxErrorM float64 `json:"max_error_m"`
}

// LonLatTolerance is the largest error NewLonLatGrid accepts, in metres on
// the ground: a millimetre.
const LonLatTolerance = 1e-3

// maxLonLatSteps bounds the node cells along a side (the lattice holds at
// most (maxLonLatSteps+3)² nodes, 4.3 MB).
const maxLonLatSteps = 512

// ErrLonLatGrid is wrapped by NewLonLatGrid's errors and by a LonLatGrid's
// that is not well formed (a store's, read back).
var ErrLonLatGrid = errors.New("heightmap: lon/lat grid")

// NewLonLatGrid builds the LonLatGrid of a width×height grid on ref
// through the registered Driver's Transform: nodes every 1/8 of the
// longer side, halved until the interpolation is within LonLatTolerance of
// the driver at every node cell's centre and edge midpoints (at most
// maxLonLatSteps cells of nodes a side). Errors: ErrNoGeoref, ErrNoCRS,
// ErrNoGDAL, the driver's, and ErrLonLatGrid when no lattice is close
// enough (a grid across a pole).
func NewLonLatGrid(ref Georef, width, height int) (*LonLatGrid, error) {
	return newLonLatGrid(ref, width, height, registered().transformer())
}

func newLonLatGrid(ref Georef, width, height int, tr transformFunc) (*LonLatGrid, error) {
	switch {
	case !ref.HasGeoTransform:
		return nil, ErrNoGeoref
	case ref.CRS == "":
		return nil, ErrNoCRS
	case width < 1 || height < 1:
		return nil, fmt.Errorf("%w: a %d×%d grid", ErrLonLatGrid, width, height)
	}
	var worst float64
	for steps := 8; steps <= maxLonLatSteps; steps *= 2 {
		side := float64(max(width, height)) / float64(steps)
		nu := max(1, int(math.Ceil(float64(width)/side)))
		nv := max(1, int(math.Ceil(float64(height)/side)))
		g := &LonLatGrid{Cols: nu + 3, Rows: nv + 3, StepU: float64(width) / float64(nu), StepV: float64(height) / float64(nv)}
		xs := make([]float64, 0, g.Cols*g.Rows)
		ys := make([]float64, 0, g.Cols*g.Rows)
		for j := range g.Rows {
			for i := range g.Cols {
				x, y := ref.at(float64(i-1)*g.StepU, float64(j-1)*g.StepV)
				xs, ys = append(xs, x), append(ys, y)
			}
		}
		if err := tr(ref.CRS, true, xs, ys); err != nil {
			return nil, err
		}
		g.Degrees = make([]float64, 0, 2*len(xs))
		for k := range xs {
			g.Degrees = append(g.Degrees, xs[k], ys[k])
		}
		if err := g.unwrap(); err != nil {
			return nil, err
		}
		for k, d := range g.Degrees {
			g.Degrees[k] = roundDegrees(d)
		}
		// The checks: each node cell's centre and the midpoints of its
		// top and left edges, and of the last row's and column's others.
		var us, vs []float64
		for j := 0; j <= 2*nv; j++ {
			for i := 0; i <= 2*nu; i++ {
				if i%2 == 0 && j%2 == 0 {
					continue // a node
				}
				us, vs = append(us, float64(i)/2*g.StepU), append(vs, float64(j)/2*g.StepV)
			}
		}
		xs, ys = xs[:0], ys[:0]
		for k := range us {
			x, y := ref.at(us[k], vs[k])
			xs, ys = append(xs, x), append(ys, y)
		}
		if err := tr(ref.CRS, true, xs, ys); err != nil {
			return nil, err
		}
		worst = 0
		for k := range us {
			lon, lat := g.interpolate(us[k], vs[k])
			d := groundMetres(lon, lat, xs[k], ys[k])
			if !(d <= worst) { // NaN too
				worst = d
			}
		}
		if worst <= LonLatTolerance {
			g.MaxErrorM = math.Ceil(worst*1e6) / 1e6 // to the micrometre: see roundDegrees
			return g, nil
		}
	}
	return nil, fmt.Errorf("%w: interpolation %.3g m off the CRS's own transform with %d nodes a side (more than %g m)",
		ErrLonLatGrid, worst, maxLonLatSteps+3, LonLatTolerance)
}

// lonLatQuantum is the step, in degrees, to which a lattice's nodes are
// rounded (11 µm of latitude).
const lonLatQuantum = 1e-9

// roundDegrees rounds a node's longitude or latitude to lonLatQuantum.
// PROJ (a build with GDAL) and package crs (one without) agree to about
// 10⁻¹⁴ degrees, not to the bit; rounded, they record the same lattice —
// the same store bytes — unless a value lies within that of a rounding
// boundary (about one node in 10⁵). The rounding moves a node by at most
// 56 µm, which the interpolation's error check then includes; MaxErrorM
// is rounded up to the micrometre for the same reason.
func roundDegrees(d float64) float64 { return math.Round(d/lonLatQuantum) * lonLatQuantum }

// at returns the map point of fractional cell (u, v) from the grid's
// top-left corner.
func (g Georef) at(u, v float64) (x, y float64) {
	gt := g.GeoTransform
	// Converted: a product feeding an addition may not be fused (the
	// lattice's nodes and checks are the same bits on every CPU and build).
	return gt[0] + float64(u*gt[1]) + float64(v*gt[2]), gt[3] + float64(u*gt[4]) + float64(v*gt[5])
}

// unwrap makes neighbouring nodes' longitudes differ by less than 180°
// (adding multiples of 360 along the first row, then down each column),
// and refuses a lattice with a latitude beyond ±90 or a jump left.
func (g *LonLatGrid) unwrap() error {
	ll := g.Degrees
	fix := func(k, ref int) {
		for ll[2*k]-ll[2*ref] > 180 {
			ll[2*k] -= 360
		}
		for ll[2*k]-ll[2*ref] < -180 {
			ll[2*k] += 360
		}
	}
	for i := 1; i < g.Cols; i++ {
		fix(i, i-1)
	}
	for j := 1; j < g.Rows; j++ {
		for i := range g.Cols {
			fix(j*g.Cols+i, (j-1)*g.Cols+i)
		}
	}
	for k := 0; k < len(ll); k += 2 {
		if !(math.Abs(ll[k+1]) <= 90) || math.IsInf(ll[k], 0) || math.IsNaN(ll[k]) {
			return fmt.Errorf("%w: node at lon/lat %g,%g, off the globe", ErrLonLatGrid, ll[k], ll[k+1])
		}
		if i := k / 2 % g.Cols; i > 0 && math.Abs(ll[k]-ll[k-2]) >= 180 {
			return fmt.Errorf("%w: longitude jumps from %g to %g between nodes (a pole inside the grid?)", ErrLonLatGrid, ll[k-2], ll[k])
		}
	}
	return nil
}

// Check reports ErrLonLatGrid when g is not a lattice NewLonLatGrid could
// have built for a width×height grid: at least 4×4 nodes whose steps span
// it, finite degrees within ±90° of latitude.
func (g *LonLatGrid) Check(width, height int) error {
	if g.Cols < 4 || g.Rows < 4 || g.Cols > maxLonLatSteps+3 || g.Rows > maxLonLatSteps+3 ||
		len(g.Degrees) != 2*g.Cols*g.Rows ||
		!closeTo(float64(g.Cols-3)*g.StepU, float64(width)) || !closeTo(float64(g.Rows-3)*g.StepV, float64(height)) {
		return fmt.Errorf("%w: %d×%d nodes %g×%g cells apart (%d values) for a %d×%d grid",
			ErrLonLatGrid, g.Cols, g.Rows, g.StepU, g.StepV, len(g.Degrees), width, height)
	}
	for k := 0; k < len(g.Degrees); k += 2 {
		lon, lat := g.Degrees[k], g.Degrees[k+1]
		if !(math.Abs(lat) <= 90) || !(math.Abs(lon) <= 720) {
			return fmt.Errorf("%w: node %d at lon/lat %g,%g", ErrLonLatGrid, k/2, lon, lat)
		}
	}
	return nil
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// lagrange returns the weights of the cubic through nodes at −1, 0, 1, 2
// for the value at t.
func lagrange(t float64) (w0, w1, w2, w3 float64) {
	return -t * (t - 1) * (t - 2) / 6, (t + 1) * (t - 1) * (t - 2) / 2, -(t + 1) * t * (t - 2) / 2, (t + 1) * t * (t - 1) / 6
}

// interpolate returns the longitude (unwrapped) and latitude at fractional
// cell (u, v); outside the nodes it extends the nearest cubic patches.
func (g *LonLatGrid) interpolate(u, v float64) (lon, lat float64) {
	// Node k lies at (k−1)·step; the patch of [ (k−1)s, ks ] uses nodes
	// k−1 … k+2.
	a, b := u/g.StepU, v/g.StepV
	ki := min(max(int(math.Floor(a))+1, 1), g.Cols-3)
	kj := min(max(int(math.Floor(b))+1, 1), g.Rows-3)
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN(), math.NaN()
	}
	var wu, wv [4]float64
	wu[0], wu[1], wu[2], wu[3] = lagrange(a - float64(ki-1))
	wv[0], wv[1], wv[2], wv[3] = lagrange(b - float64(kj-1))
	for r := range 4 {
		row := 2 * ((kj-1+r)*g.Cols + ki - 1)
		var lo, la float64
		for c := range 4 { // converted: never fused (at's comment)
			lo += float64(wu[c] * g.Degrees[row+2*c])
			la += float64(wu[c] * g.Degrees[row+2*c+1])
		}
		lon += float64(wv[r] * lo)
		lat += float64(wv[r] * la)
	}
	return lon, lat
}

// LonLat returns the longitude (−180 to 180) and latitude in degrees of
// fractional cell (u, v) from the grid's top-left corner.
func (g *LonLatGrid) LonLat(u, v float64) (lon, lat float64) {
	lon, lat = g.interpolate(u, v)
	return wrapLon(lon), lat
}

// Cell returns the fractional cell (u, v) from the grid's top-left corner
// at longitude lon and latitude lat in degrees: the interpolation
// inverted by Newton's method, to 10⁻⁸ cells (10⁻⁵ where the degrees'
// rounding stops it sooner). Positions off the grid
// follow its edge patches, so a point outside comes back outside. Errors:
// ErrOutside where the iteration does not settle (far off the grid).
func (g *LonLatGrid) Cell(lon, lat float64) (u, v float64, err error) {
	// The longitude nearest the lattice's centre node (unwrapped).
	c := 2 * ((g.Rows/2)*g.Cols + g.Cols/2)
	lon += float64(360 * math.Round((g.Degrees[c]-lon)/360))
	u = float64(g.Cols/2-1) * g.StepU
	v = float64(g.Rows/2-1) * g.StepV
	const h = 1e-3 // cells, for the Jacobian's central differences
	step := math.Inf(1)
	for range 50 {
		x, y := g.interpolate(u, v)
		x1, y1 := g.interpolate(u+h, v)
		x0, y0 := g.interpolate(u-h, v)
		x3, y3 := g.interpolate(u, v+h)
		x2, y2 := g.interpolate(u, v-h)
		a, b := (x1-x0)/(2*h), (x3-x2)/(2*h) // ∂lon/∂u, ∂lon/∂v
		cc, d := (y1-y0)/(2*h), (y3-y2)/(2*h)
		det := float64(a*d) - float64(b*cc)
		if det == 0 || math.IsNaN(det) {
			break
		}
		ex, ey := lon-x, lat-y
		du := (float64(d*ex) - float64(b*ey)) / det
		dv := (float64(-cc*ex) + float64(a*ey)) / det
		u, v = u+du, v+dv
		// Degrees hold about 16 digits: 10⁻⁸ cells of a 0.1 m cell is
		// near their last one.
		if step = math.Hypot(du, dv); step < 1e-8 {
			return u, v, nil
		}
	}
	if step < 1e-5 {
		return u, v, nil
	}
	return 0, 0, fmt.Errorf("heightmap: lon/lat %g,%g is %w (far off it)", wrapLon(lon), lat, ErrOutside)
}

// wrapLon brings a longitude into −180 to 180 degrees.
func wrapLon(lon float64) float64 {
	if lon > 180 || lon < -180 {
		lon -= float64(360 * math.Round(lon/360))
	}
	return lon
}

// groundMetres returns the distance in metres, on a sphere of WGS 84's
// semi-major axis, between two nearby lon/lat points (degrees): enough to
// judge an interpolation's error. The same bits on every CPU and build
// (a store records the largest: LonLatGrid.MaxErrorM): no fused
// multiply-add, and cosRad for math.Cos, whose multiply-adds the compiler
// fuses under GOAMD64=v3.
func groundMetres(lon1, lat1, lon2, lat2 float64) float64 {
	const r = 6378137 * math.Pi / 180 // metres per degree
	dlon := wrapLon(lon1 - lon2)
	dx := float64(dlon*r) * cosRad((lat1+lat2)/2*math.Pi/180)
	dy := (lat1 - lat2) * r
	return math.Sqrt(float64(dx*dx) + float64(dy*dy))
}

// cosRad returns cos x for |x| ≤ π/2 (latitudes) by its Taylor series to
// x²², whose remainder there is below 10⁻¹⁷, every product and quotient
// rounded on its own: the same bits on every CPU and build. Only
// latitudes' range is asked of it.
func cosRad(x float64) float64 {
	x2 := float64(x * x)
	s, term := 1.0, 1.0
	for n := 1; n <= 11; n++ {
		term = float64(-term*x2) / float64((2*n-1)*(2*n))
		s += term
	}
	return s
}
