// Package horizon computes per-point visibility on a terrain grid by the
// sector-horizon method of the thesis (§3.1): the azimuth range around an
// observer is cut into S sectors; each sector's midline is walked as a
// Bresenham line from the observer to the grid's edge while tracking the
// running maximum elevation angle (the intermediate horizons, ending at the
// approximate horizon); every cell of the sector's wedge is then classified
// against that profile at the cell's own distance. A cell is hidden when a
// target standing on it — its top at ground + target height τ — lies below
// the line of sight from the observer's eye over the terrain in between, i.e.
// when it lies in an occluded region deeper than τ.
//
// Distances are metric (cell spacing Dx, Dy in metres); heights are metres.
// Angles are carried as slopes (tangent of the elevation angle) inside the
// hot loops and converted to radians only for export.
//
// A Model holds the observer-independent tables of one terrain and parameter
// set and is safe for concurrent use; each goroutine computes viewsheds with
// its own Worker, whose scratch memory is reused so that steady-state
// computation allocates nothing.
package horizon

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Terrain is the heightmap the viewsheds are computed on: Width×Height cells,
// Elev row-major in metres (cell (col,row) at Elev[row*Width+col], row 0 at
// the top, i.e. north), Dx metres between columns and Dy between rows.
type Terrain struct {
	Width, Height int
	Elev          []float32
	Dx, Dy        float64
}

// Params are the visibility parameters of §3.1.
type Params struct {
	Sectors        int     // S, number of azimuth sectors (≥ 8)
	ObserverHeight float64 // eye above the ground at the observer's cell, metres (≥ 0)
	TargetHeight   float64 // τ, top of a target above its cell's ground, metres (≥ 0)
	// MaxDistance in metres; cells farther from the observer are hidden (the
	// view ends there, symmetrically for every pair). 0 means no limit.
	MaxDistance float64
	// EarthCurvature lowers every point at distance d by (1-Refraction)·d²/2R
	// (R = 6,371,008.8 m). Off by default, as in gdal_viewshed -cc 0.
	EarthCurvature bool
	Refraction     float64 // refraction coefficient in [0, 1), used with EarthCurvature
}

// DefaultParams returns S = 1024 sectors, observer and target 1.8 m tall, no
// distance limit, no Earth curvature.
func DefaultParams() Params {
	return Params{Sectors: 1024, ObserverHeight: 1.8, TargetHeight: 1.8}
}

// earthRadius is the mean Earth radius in metres.
const earthRadius = 6371008.8

// marginSteps is how far before a target, in steps of the sector's midline,
// the occluders that can hide it end: a midline cell closer to the target
// than this lies beside it rather than between it and the observer (the
// target's own cell never hides it). Chosen from the fidelity measurements
// against the exact line-of-sight reference (see the package tests).
const marginSteps = 0.5

// Errors returned by New and Worker.Viewshed.
var (
	ErrParams  = errors.New("horizon: invalid parameters")
	ErrTerrain = errors.New("horizon: invalid terrain")
	ErrOutside = errors.New("horizon: observer outside the grid")
)

// Model holds the observer-independent tables for one terrain and Params.
// It is read-only after New and safe for concurrent use by many Workers.
//
// Midlines: the steps of sector k are [lineStart[k], lineStart[k+1]) in the
// step arrays; the first step of each line is the observer itself (offset
// 0). Index 0 of the step arrays is reserved for a profile slot of +Inf that
// hides every cell beyond MaxDistance. Offsets: the cell at offset (dc,dr)
// from the observer, -Width < dc < Width, -Height < dr < Height, has entry
// (dr+Height-1)*(2*Width-1) + dc+Width-1 of the off* arrays.
type Model struct {
	t Terrain
	p Params

	lineStart   []int32   // len S+1
	secBDC      []int8    // per sector: column offset of a step's second cell (0 or 1)
	secBDR      []int8    // per sector: row offset of a step's second cell (0 or 1)
	stepDC      []int16   // column offset of each step's first cell
	stepDR      []int16   // row offset of each step's first cell
	stepDelta   []int32   // stepDR*Width + stepDC: index offset in Elev
	stepWeight  []float32 // weight of the second cell in the step's height
	stepInvDist []float32 // 1 / distance in metres (0 at the observer)
	stepDist    []float32 // distance in metres
	stepDrop    []float32 // Earth-curvature drop in metres (nil when off)

	// Each cell is judged against the two midlines that bracket its azimuth
	// (its own sector's and the nearer neighbour's): profile slots and
	// sectors of both. Sector S marks cells beyond MaxDistance.
	offProf    [2][]int32
	offSector  [2][]uint16
	offInvDist []float32 // 1 / distance in metres (0 at the observer and beyond MaxDistance)
	offDrop    []float32 // Earth-curvature drop in metres (nil when off)
}

// Validate reports parameters New would refuse (errors wrap ErrParams): S
// from 8 to 65,534 sectors, heights ≥ 0 metres, a max distance ≥ 0 metres,
// and with Earth curvature a refraction coefficient in [0, 1).
func (p Params) Validate() error {
	switch {
	case p.Sectors < 8 || p.Sectors >= math.MaxUint16:
		return fmt.Errorf("%w: %d sectors, want 8 to %d", ErrParams, p.Sectors, math.MaxUint16-1)
	case !(p.ObserverHeight >= 0) || !(p.TargetHeight >= 0) || math.IsInf(p.ObserverHeight, 0) || math.IsInf(p.TargetHeight, 0):
		return fmt.Errorf("%w: observer height %g m and target height %g m must be ≥ 0", ErrParams, p.ObserverHeight, p.TargetHeight)
	case !(p.MaxDistance >= 0):
		return fmt.Errorf("%w: max distance %g m must be ≥ 0", ErrParams, p.MaxDistance)
	case p.EarthCurvature && !(p.Refraction >= 0 && p.Refraction < 1):
		return fmt.Errorf("%w: refraction coefficient %g, want 0 ≤ k < 1", ErrParams, p.Refraction)
	}
	return nil
}

// New validates t and p and builds the tables: about S·max(W,H) midline
// steps of 20 bytes and (2W-1)·(2H-1) offset entries of 16 bytes (20 with
// Earth curvature): 12.8 MB for a 316² grid at S = 1024. Errors wrap
// ErrTerrain or ErrParams.
func New(t Terrain, p Params) (*Model, error) {
	switch {
	case t.Width <= 0 || t.Height <= 0 || len(t.Elev) != t.Width*t.Height:
		return nil, fmt.Errorf("%w: %d×%d cells with %d elevations", ErrTerrain, t.Width, t.Height, len(t.Elev))
	case t.Width > math.MaxInt16 || t.Height > math.MaxInt16:
		return nil, fmt.Errorf("%w: %d×%d cells is larger than %d on a side; use a window", ErrTerrain, t.Width, t.Height, math.MaxInt16)
	case !(t.Dx > 0) || !(t.Dy > 0) || math.IsInf(t.Dx, 0) || math.IsInf(t.Dy, 0):
		return nil, fmt.Errorf("%w: cell spacing %g × %g m", ErrTerrain, t.Dx, t.Dy)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for i, z := range t.Elev {
		if math.IsNaN(float64(z)) || math.IsInf(float64(z), 0) {
			return nil, fmt.Errorf("%w: cell %d has elevation %v; fill nodata first", ErrTerrain, i, z)
		}
	}
	m := &Model{t: t, p: p}
	m.buildLines()
	m.buildOffsets()
	return m, nil
}

// Terrain returns the terrain the model was built on.
func (m *Model) Terrain() Terrain { return m.t }

// Params returns the parameters the model was built with.
func (m *Model) Params() Params { return m.p }

// maxDist returns the distance limit in metres (+Inf when none).
func (m *Model) maxDist() float64 {
	if m.p.MaxDistance > 0 {
		return m.p.MaxDistance
	}
	return math.Inf(1)
}

// drop returns the Earth-curvature drop at distance d metres.
func (m *Model) drop(d float64) float32 {
	return float32((1 - m.p.Refraction) * d * d / (2 * earthRadius))
}

// sectorAzimuth returns the azimuth of sector k's midline, radians clockwise
// from grid north (up).
func (m *Model) sectorAzimuth(k int) float64 {
	return (float64(k) + 0.5) * 2 * math.Pi / float64(m.p.Sectors)
}

// buildLines walks every sector's midline as a Bresenham line: one step per
// column (or row) along the major axis of the direction in cells, out to the
// grid's extent from any observer (|dc| < Width, |dr| < Height) or
// MaxDistance. At step i the midline crosses the major-axis cell centre line
// at a fractional minor offset f; the step keeps the cell at floor(f) and the
// weight f-floor(f) of its neighbour one further along the minor axis, so
// that the walk samples the surface on the midline itself (linear
// interpolation between the two cells the line passes between) rather than
// at the centres of the cells it rounds to.
func (m *Model) buildLines() {
	S, W, H := m.p.Sectors, m.t.Width, m.t.Height
	lim := m.maxDist()
	m.lineStart = make([]int32, S+1)
	m.secBDC, m.secBDR = make([]int8, S), make([]int8, S)
	// slot 0: the +Inf profile for cells beyond MaxDistance
	m.stepDC, m.stepDR, m.stepDelta = []int16{0}, []int16{0}, []int32{0}
	m.stepWeight, m.stepInvDist, m.stepDist = []float32{0}, []float32{0}, []float32{0}
	curved := m.p.EarthCurvature
	if curved {
		m.stepDrop = []float32{0}
	}
	for k := range S {
		m.lineStart[k] = int32(len(m.stepDC))
		az := m.sectorAzimuth(k)
		ux, uy := math.Sin(az)/m.t.Dx, -math.Cos(az)/m.t.Dy // cells per metre
		colMajor := math.Abs(ux) >= math.Abs(uy)
		if colMajor {
			m.secBDR[k] = 1
		} else {
			m.secBDC[k] = 1
		}
		for i := 0; ; i++ {
			var x, y float64 // exact offset of the midline at step i, cells
			if colMajor {
				x, y = float64(i*sign(ux)), float64(i)*uy/math.Abs(ux)
			} else {
				x, y = float64(i)*ux/math.Abs(uy), float64(i*sign(uy))
			}
			dc, dr := int(math.Floor(x)), int(math.Floor(y))
			wgt := y - float64(dr)
			if !colMajor {
				wgt = x - float64(dc)
			}
			d := math.Hypot(x*m.t.Dx, y*m.t.Dy)
			if i > 0 && (dc <= -W || dr <= -H || dc+int(m.secBDC[k]) >= W || dr+int(m.secBDR[k]) >= H || d > lim) {
				break // step 0, the observer, is always kept
			}
			inv := float32(0)
			if i > 0 {
				inv = float32(1 / d)
			}
			m.stepDC = append(m.stepDC, int16(dc))
			m.stepDR = append(m.stepDR, int16(dr))
			m.stepDelta = append(m.stepDelta, int32(dr*W+dc))
			m.stepWeight = append(m.stepWeight, float32(wgt))
			m.stepInvDist = append(m.stepInvDist, inv)
			m.stepDist = append(m.stepDist, float32(d))
			if curved {
				m.stepDrop = append(m.stepDrop, m.drop(d))
			}
		}
	}
	m.lineStart[S] = int32(len(m.stepDC))
}

// buildOffsets assigns every offset from the observer its distance and, for
// the two sector midlines that bracket its metric azimuth, the profile slot
// that decides it: the last midline step at least marginSteps steps closer
// to the observer than the cell.
func (m *Model) buildOffsets() {
	S, W, H := m.p.Sectors, m.t.Width, m.t.Height
	lim := m.maxDist()
	n := (2*W - 1) * (2*H - 1)
	for i := range 2 {
		m.offProf[i] = make([]int32, n)
		m.offSector[i] = make([]uint16, n)
	}
	m.offInvDist = make([]float32, n)
	if m.p.EarthCurvature {
		m.offDrop = make([]float32, n)
	}
	for dr := -(H - 1); dr < H; dr++ {
		for dc := -(W - 1); dc < W; dc++ {
			o := (dr+H-1)*(2*W-1) + dc + W - 1
			x, y := float64(dc)*m.t.Dx, float64(dr)*m.t.Dy
			d := math.Hypot(x, y)
			if d > lim {
				m.offSector[0][o], m.offSector[1][o] = uint16(S), uint16(S) // slot 0: +Inf, hidden
				continue
			}
			az := math.Atan2(x, -y)
			if az < 0 {
				az += 2 * math.Pi
			}
			u := az / (2 * math.Pi) * float64(S) // in sectors; midline k at k+0.5
			k := min(int(u), S-1)
			k2 := (k + 1) % S
			if u-float64(k) < 0.5 {
				k2 = (k + S - 1) % S
			}
			if d > 0 {
				m.offInvDist[o] = float32(1 / d)
			}
			if m.offDrop != nil {
				m.offDrop[o] = m.drop(d)
			}
			for i, sec := range [2]int{k, k2} {
				m.offSector[i][o] = uint16(sec)
				m.offProf[i][o] = m.profileSlot(sec, d)
			}
		}
	}
}

// profileSlot returns the step of sector k's midline whose running maximum
// decides a cell at distance d metres: the last step at least marginSteps
// steps closer than d (the observer's own step, of slope -Inf, when none).
func (m *Model) profileSlot(k int, d float64) int32 {
	start, end := int(m.lineStart[k]), int(m.lineStart[k+1])
	if d == 0 {
		return int32(start)
	}
	step := min(m.t.Dx, m.t.Dy) // one step's length along this midline
	if end-start > 1 {
		step = float64(m.stepDist[start+1])
	}
	cut := float32(d - marginSteps*step)
	j := sort.Search(end-start, func(j int) bool { return m.stepDist[start+j] > cut }) - 1
	return int32(start + max(j, 0))
}

func sign(v float64) int {
	if v < 0 {
		return -1
	}
	return 1
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
