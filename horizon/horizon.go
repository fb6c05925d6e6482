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
// Worker.Viewshed classifies every cell into a bitmap; Worker.Classify gives
// the same answer as a quad pyramid (Levels), deciding whole quads from a
// min/max elevation pyramid and looking at cells one by one only along the
// boundaries of visible regions: the bake's path into predictive quadtrees
// (§3.2). Each midline's walk stops as soon as the rest of the line cannot
// raise its running maximum.
//
// The bake computes 16 observers at once instead (BlockWorker, block.go):
// the 4×4 observers of a block walk their midlines as one vector of lanes
// and share one traversal of the quad pyramid, each decided by the same
// per-cell test on the same float32 values, so that their pyramids are
// Worker.Classify's bit for bit; its kernels are portable Go (lanes.go) or,
// in a build with GOEXPERIMENT=simd on a CPU with AVX-512, vector code
// (lanes_simd.go) that computes the same bits. Worker stays the reference
// and serves single viewsheds.
//
// Every float32 expression that could be fused into a multiply-add is
// written with an explicit conversion, so that GOAMD64=v3 and arm64 builds
// compute the same bits as GOAMD64=v1 (TestGolden).
//
// A Model holds the observer-independent tables of one terrain and parameter
// set and is safe for concurrent use; each goroutine computes viewsheds with
// its own Worker (or BlockWorker), whose scratch memory is reused so that
// steady-state computation allocates nothing.
package horizon

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
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
	// Margin in metres (≥ 0): a target counts as hidden only when its top
	// lies below the line of sight over the terrain by at least this much,
	// i.e. every target is judged Margin metres taller. A conservative
	// margin for grazing lines of sight; it does not remove the sector
	// model's angular misses (a ridge on the midline beside the true ray,
	// clearing the terrain by up to metres): LOSConservative does. 0 is
	// the thesis's test.
	Margin float64
	// LOS is the visibility model (los.go): LOSSector, the zero value, is
	// the thesis's (§3.1); LOSConservative hides a target only when the
	// exact line of sight to it is blocked. Worker and BlockWorker both
	// honour it.
	LOS LOS
	// Version is the model's version to bake: 0, the model's default
	// (LOS.Default; region version 5, cut.go), or another this build
	// keeps (from LOS.Oldest to LOS.Version): an older one for comparisons
	// (region versions 2 and 3, the swept squares; 4, the cuts on
	// heightmap cells only). Stores record the version they were baked
	// with (ModelVersion).
	Version int
	// PVSCell is the side of a PVS cell in heightmap cells (0 or 1: the
	// heightmap's own cells; > 1 only with LOSRegion, at most
	// MaxPVSCell). New then builds the model on the grid of PVS cells
	// (PVSGrid): observers and targets are PVS cells, visibility is judged
	// on the heightmap's surface (region.go).
	PVSCell int
}

// MaxPVSCell bounds Params.PVSCell, in heightmap cells.
const MaxPVSCell = 1024

// DefaultParams returns S = 1024 sectors, observer and target 1.8 m tall, no
// distance limit, no Earth curvature, and the from-region model (a target
// cell is hidden only when no position in it is seen from any position in
// the observer's cell: region.go). LOSConservative judges the sample
// points alone, for Earth curvature and comparisons.
func DefaultParams() Params {
	return Params{Sectors: 1024, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSRegion}
}

// ThesisParams returns the thesis's parameters (§4): DefaultParams with
// the sector model, for comparisons with its tables and with peers that
// use sector horizons.
func ThesisParams() Params {
	p := DefaultParams()
	p.LOS = LOSSector
	return p
}

// ModelVersion returns the version of the model p bakes: Version, or the
// model's default (LOS.Default) when that is 0.
func (p Params) ModelVersion() int {
	if p.Version != 0 {
		return p.Version
	}
	return p.LOS.Default()
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
// Midlines are not tabulated step by step: sector k's midline advances one
// cell along its major axis per step (index stride secMajor[k]) and
// secSlope[k] cells along the minor axis (stride secMinor[k]), a 32.32
// fixed-point fraction, so step i's first cell and the weight of its second
// are exact integer arithmetic. Step i lies i·secStep[k] metres from the
// observer. A Worker's profile of sector k occupies slots [lineStart[k],
// lineStart[k+1]); the first is the observer itself (slope -Inf).
//
// Offsets: the cell at offset (dc,dr) from the observer, |dc| ≤ rc,
// |dr| ≤ rr, has entry |dr|·(rc+1) + |dc| of off (and offDrp): distance and
// azimuth are symmetric, so one quadrant is kept (offset returns the
// azimuth in the other three); offsets beyond lie beyond MaxDistance
// (rc = Width-1, rr = Height-1 without one).
type Model struct {
	t       Terrain
	p       Params
	kernels *kernelSet // nil: the package's default (SetKernels)

	lineStart []int32   // len S+1
	secMajor  []int32   // index stride of one major-axis step: ±1 or ±Width
	secMinor  []int32   // index stride of one minor-axis cell: Width or 1
	secSlope  []int64   // minor-axis cells per step, 32.32 fixed point, |·| ≤ 2³²
	secColMaj []bool    // the major axis is the column axis
	secMax    []int32   // steps of the midline inside the grid's extent and MaxDistance
	secStep   []float64 // metres per step
	secInv    []float32 // 1 / metres per step
	secInvX   []float32 // secInv[k mod S] for k = 0 … 2S+31 (the block engine's brackets)
	secDrop   []float32 // Earth-curvature drop at step i is secDrop·i² metres (nil when off)
	recip     []float32 // recip[i] = 1/i (recip[0] = 0)

	rc, rr int
	// Offset table, structure of arrays (the block engine reads 4×4
	// windows of each): offU[o] is the metric azimuth in sectors of offset
	// (|dc|, -|dr|), north-east of the observer, in [0, S/4] (midline k at
	// k+½); offD[o] its distance in metres; offInv[o] = 1/offD[o] (0 at
	// the observer).
	offU, offD, offInv []float32
	offDrp             []float32 // Earth-curvature drop in metres (nil when off)
	lim                float32   // MaxDistance in metres, +Inf when none
	invLim             float32   // 1/MaxDistance rounded down, 0 when none

	// zmin[l], zmax[l]: lowest and highest elevation of each quad of level l
	// (side 2^l cells), row-major over ⌈W/2^l⌉×⌈H/2^l⌉; level 0 is Elev.
	zmin, zmax [][]float32
	cols       []int32 // quads of level l per row: ⌈W/2^l⌉

	lines lineModel // the visibility model's implementation (lineModels[p.LOS])

	// occ is the surface the lines walk (the occluders) and top the
	// ground under eyes and targets, row-major like Elev: both Elev,
	// except top under LOSRegion (region.go: the squares' highest
	// points). user is the Params New was given (p's MaxDistance is
	// widened under LOSRegion).
	occ, top []float32
	user     Params

	// Conservative mode: the padded patch tables (patchTables: twice the
	// patches' slope bounds in metres per cell and their highest corners,
	// consGW patches per row) and the rounding allowance consPad in
	// metres, built on first use; per sector the profile's shift in steps
	// and its arcs' pull-in in metres (consMargin); the arc's ends per
	// metre of radius, in cells (midline k's, then midline k+1's), and its
	// slack per metre of radius, in cells (consBulge).
	k1          int // the second profile a cell reads: sector k0+k1 (1; 0 in the conservative mode)
	consOnce    sync.Once
	consG2      []float32
	consTop     []float32
	consBot     []float32 // lowest corners less consPad, 4·len(consG2) bytes after consG2
	consGW      int
	consPad     float32
	segOnce     sync.Once
	consTab     []consSeg // chord segments of steps 1 … consL (buildSegTable)
	consOff     []int32
	consSc      [][3]float32 // each table step's bulge, drop and inv (consScalars)
	consL       int
	consFar     bool // the table outgrows a CPU's last-level cache: the kernels fetch further ahead (farTableBytes)
	consShift   []int
	consPull    []float32 // metres: the arcs lie this much nearer than their steps (consMargin)
	consStopPad []float32 // metres: the early stops' allowance for that (patchTables)
	consDir     [][4]float32
	consSlack   float64
	consFirst   []int // per sector, the first step whose arc counts (LOSRegion; nil: 1)
	// regionVersion is the region model's version that runs (region.go).
	regionVersion int
	// Region versions 4 and 5, the cuts (cut.go): per sector the cut
	// walk's constants, the surface transposed (occT[c*Height+r]) and
	// the cuts' reciprocals.
	cut      []cutSector
	occT     []float32
	cutRecip []float64 // 1/(c + ½) for c = 0 … max(Width, Height)+1
	cutOff   []int32   // sector k's cuts: cutTab[cutOff[k] : cutOff[k+1]], by cut
	cutTab   []cutStep
	cutRow   []int32   // sector k's first row holding each cut: cutRow[cutOff[k]+k : cutOff[k+1]+k+1] (cutTables)
	cutMaxT  []float32 // the screen's runs (cutMaxes) of occT's columns and occ's rows
	cutMax   []float32

	// The elevations with a border of blockPad cells, for the block
	// engine's walk (padded), built by the first NewBlockWorker.
	padOnce sync.Once
	pad     []float32
	padW    int
}

// Validate reports parameters New would refuse (errors wrap ErrParams): S
// from 8 to 65,534 sectors, heights ≥ 0 metres, a max distance ≥ 0 metres,
// a margin ≥ 0 metres, with Earth curvature a refraction coefficient in
// [0, 1), and a visibility model this build implements.
// Bounds of Params's lengths: heights and the margin at most 100 km, the
// view distance at most the Earth's circumference.
const (
	MaxHeight   = 1e5
	MaxDistance = 4e7
)

func (p Params) Validate() error {
	switch {
	case p.Sectors < 8 || p.Sectors >= math.MaxUint16:
		return fmt.Errorf("%w: %d sectors, want 8 to %d", ErrParams, p.Sectors, math.MaxUint16-1)
	case !(p.ObserverHeight >= 0 && p.ObserverHeight <= MaxHeight) || !(p.TargetHeight >= 0 && p.TargetHeight <= MaxHeight):
		return fmt.Errorf("%w: observer height %.4g m and target height %.4g m, want 0 to %g m", ErrParams, p.ObserverHeight, p.TargetHeight, MaxHeight)
	case !(p.MaxDistance >= 0 && p.MaxDistance <= MaxDistance):
		return fmt.Errorf("%w: max distance %.4g m, want 0 to %g m", ErrParams, p.MaxDistance, MaxDistance)
	case !(p.Margin >= 0 && p.Margin <= MaxHeight):
		return fmt.Errorf("%w: margin %.4g m, want 0 to %g m", ErrParams, p.Margin, MaxHeight)
	case p.EarthCurvature && !(p.Refraction >= 0 && p.Refraction < 1):
		return fmt.Errorf("%w: refraction coefficient %.4g, want 0 ≤ k < 1", ErrParams, p.Refraction)
	case !p.LOS.Valid():
		return fmt.Errorf("%w: visibility model %v, want %s", ErrParams, p.LOS, LOSNames())
	case p.Version != 0 && (p.Version < p.LOS.Oldest() || p.Version > p.LOS.Version()):
		return fmt.Errorf("%w: %v model version %d, want %d to %d", ErrParams, p.LOS, p.Version, p.LOS.Oldest(), p.LOS.Version())
	case p.LOS == LOSRegion && p.EarthCurvature:
		return fmt.Errorf("%w: the region model does not take Earth curvature; bake without it or with the conservative model", ErrParams)
	case p.PVSCell < 0 || p.PVSCell > MaxPVSCell:
		return fmt.Errorf("%w: PVS cells of %d heightmap cells, want 1 to %d", ErrParams, p.PVSCell, MaxPVSCell)
	case p.PVSCell > 1 && p.LOS != LOSRegion:
		return fmt.Errorf("%w: PVS cells coarser than the heightmap need the region model (%v judges sample points)", ErrParams, p.LOS)
	}
	return nil
}

// New validates t and p and builds the tables: per sector a few words, and
// 12 bytes (16 with Earth curvature) per offset of one quadrant within
// reach: W·H offsets without MaxDistance, about (MaxDistance/Dx)·
// (MaxDistance/Dy) with it; plus an elevation pyramid of about 2.7 words per
// cell, and for the block engine a padded copy of the elevations. TableBytes
// gives the total. Errors wrap
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
	var err error
	m := &Model{t: t, p: p, user: p, occ: t.Elev, top: t.Elev}
	if p.LOS == LOSRegion {
		if p.PVSCell > 1 {
			if m.t, err = pvsGrid(t, p.PVSCell); err != nil {
				return nil, err
			}
			m.occ, m.top = regionCoarse(t, p.PVSCell)
			m.t.Elev = m.top
		} else {
			m.top = regionTops(t)
		}
		if p.MaxDistance > 0 {
			// Cells are hidden by distance only when all their positions
			// are (region.go).
			m.p.MaxDistance += regionDiagonal(m.t.Dx, m.t.Dy)
			p = m.p
		}
	}
	m.lim, m.invLim = float32(math.Inf(1)), 0
	if p.MaxDistance > 0 {
		// invLim rounds down: no cell within the limit has a smaller 1/d.
		m.lim, m.invLim = float32(p.MaxDistance), math.Nextafter32(float32(1/p.MaxDistance), 0)
	}
	m.buildLines()
	m.buildOffsets()
	m.buildPyramid()
	m.lines = lineModels[p.LOS]
	m.lines.setup(m)
	return m, nil
}

// TableBytes returns the memory, in bytes, that New and the first
// viewsheds allocate for a width×height terrain of cells dx × dy metres
// with parameters p (its sectors, MaxDistance and visibility model's
// tables), for memory estimates. p is not validated: a model this build
// does not know adds nothing.
func TableBytes(width, height int, dx, dy float64, p Params) int64 {
	sectors := p.Sectors
	if p.LOS == LOSRegion && p.MaxDistance > 0 {
		p.MaxDistance += regionDiagonal(dx, dy)
	}
	var model int64
	if p.LOS.Valid() {
		model = lineModels[p.LOS].tableBytes(width, height, sectors)
	}
	rc, rr := reach(width, height, p.MaxDistance, dx, dy)
	offsets := int64(rc+1) * int64(rr+1)
	cells := int64(width) * int64(height)
	padded := int64(width+2*blockPad) * int64(height+2*blockPad) // the block engine's elevations
	return 12*offsets + 8*cells*4/3 + 4*padded + 56*int64(sectors) + 4*int64(max(width, height)) + model
}

// reach returns the offset table's half extents: the farthest column and
// row offsets a cell within MaxDistance can have.
func reach(width, height int, maxDistance, dx, dy float64) (rc, rr int) {
	rc, rr = width-1, height-1
	if maxDistance > 0 {
		rc = min(rc, int(maxDistance/dx)+1)
		rr = min(rr, int(maxDistance/dy)+1)
	}
	return rc, rr
}

// Terrain returns the terrain the model was built on; with PVS cells
// coarser than the heightmap, the grid of PVS cells (PVSGrid), whose
// elevations are each cell's highest ground.
func (m *Model) Terrain() Terrain { return m.t }

// Params returns the parameters the model was built with.
func (m *Model) Params() Params { return m.user }

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

// buildLines sets up every sector's midline as a Bresenham line: one step
// per column (or row) along the major axis of the direction in cells, out to
// the grid's extent from any observer or MaxDistance. At step i the midline
// crosses the major-axis cell centre line at a fractional minor offset f; the
// step samples the cell at floor(f) and, with weight f-floor(f), its
// neighbour one further along the minor axis, so that the walk samples the
// surface on the midline itself (linear interpolation between the two cells
// the line passes between) rather than at the centres of the cells it rounds
// to.
func (m *Model) buildLines() {
	S, W, H := m.p.Sectors, m.t.Width, m.t.Height
	lim := m.maxDist()
	m.lineStart = make([]int32, S+1)
	m.secMajor, m.secMinor = make([]int32, S), make([]int32, S)
	m.secSlope, m.secColMaj, m.secMax = make([]int64, S), make([]bool, S), make([]int32, S)
	m.secStep, m.secInv = make([]float64, S), make([]float32, S)
	if m.p.EarthCurvature {
		m.secDrop = make([]float32, S)
	}
	m.recip = make([]float32, max(W, H)+1)
	for i := 1; i < len(m.recip); i++ {
		m.recip[i] = float32(1 / float64(i))
	}
	pos := int32(0)
	for k := range S {
		az := m.sectorAzimuth(k)
		ux, uy := math.Sin(az)/m.t.Dx, -math.Cos(az)/m.t.Dy // cells per metre
		colMajor := math.Abs(ux) >= math.Abs(uy)
		var slope float64 // minor cells per major step
		var ext int       // major-axis extent of the grid in steps
		if colMajor {
			slope, ext = uy/math.Abs(ux), W-1
			m.secMajor[k], m.secMinor[k] = int32(sign(ux)), int32(W)
		} else {
			slope, ext = ux/math.Abs(uy), H-1
			m.secMajor[k], m.secMinor[k] = int32(sign(uy)*W), 1
		}
		m.secColMaj[k] = colMajor
		m.secSlope[k] = int64(math.Round(slope * (1 << 32)))
		var step float64
		if colMajor {
			step = math.Hypot(m.t.Dx, slope*m.t.Dy)
		} else {
			step = math.Hypot(slope*m.t.Dx, m.t.Dy)
		}
		m.secStep[k], m.secInv[k] = step, float32(1/step)
		if m.secDrop != nil {
			m.secDrop[k] = m.drop(step)
		}
		n := ext
		if !math.IsInf(lim, 1) {
			n = min(n, int(lim/step))
		}
		m.secMax[k] = int32(n)
		m.lineStart[k] = pos
		pos += int32(n + 1)
	}
	m.lineStart[S] = pos
	m.secInvX = make([]float32, 2*S+32)
	for k := range m.secInvX {
		m.secInvX[k] = m.secInv[k%S]
	}
}

// steps returns how many steps of sector k's midline from the observer at
// (col,row) have both cells inside the grid (and lie within MaxDistance).
func (m *Model) steps(k, col, row int) int {
	W, H := m.t.Width, m.t.Height
	n := int(m.secMax[k])
	var majRoom, minPos, minNeg int // room along the major axis; minor room ahead (for both cells of a step) and behind
	if m.secColMaj[k] {
		majRoom, minPos, minNeg = W-1-col, H-2-row, row
		if m.secMajor[k] < 0 {
			majRoom = col
		}
	} else {
		majRoom, minPos, minNeg = H-1-row, W-2-col, col
		if m.secMajor[k] < 0 {
			majRoom = row
		}
	}
	n = min(n, majRoom)
	switch mf := m.secSlope[k]; {
	case mf > 0:
		if minPos < 0 {
			return 0
		}
		n = min(n, int((int64(minPos+1)<<32-1)/mf))
	case mf < 0:
		n = min(n, int((int64(minNeg)<<32)/(-mf)))
	default:
		if minPos < 0 {
			return 0
		}
	}
	return max(n, 0)
}

// buildOffsets assigns every offset within reach its distance and metric
// azimuth (in sectors).
func (m *Model) buildOffsets() {
	m.rc, m.rr = reach(m.t.Width, m.t.Height, m.p.MaxDistance, m.t.Dx, m.t.Dy)
	n := (m.rc + 1) * (m.rr + 1)
	m.offU, m.offD, m.offInv = make([]float32, n), make([]float32, n), make([]float32, n)
	if m.p.EarthCurvature {
		m.offDrp = make([]float32, n)
	}
	o := 0
	for dr := 0; dr <= m.rr; dr++ {
		for dc := 0; dc <= m.rc; dc++ {
			d := math.Hypot(float64(dc)*m.t.Dx, float64(dr)*m.t.Dy)
			m.offU[o] = m.azQ(dc, dr)
			m.offD[o] = float32(d)
			if d > 0 {
				m.offInv[o] = float32(1 / d)
			}
			if m.offDrp != nil {
				m.offDrp[o] = m.drop(d)
			}
			o++
		}
	}
}

// azQ returns the metric azimuth in sectors of offset (dc, -dr), dc, dr ≥ 0.
func (m *Model) azQ(dc, dr int) float32 {
	return float32(math.Atan2(float64(dc)*m.t.Dx, float64(dr)*m.t.Dy) / (2 * math.Pi) * float64(m.p.Sectors))
}

// quadrantU turns the north-east azimuth q of (|dc|, -|dr|), in sectors,
// into the azimuth of (dc, dr), in [0, S).
func quadrantU(q float32, dc, dr, s int) float32 {
	switch {
	case dc >= 0 && dr <= 0:
		return q
	case dc >= 0:
		return float32(float32(s)/2) - q
	case dr > 0:
		return float32(float32(s)/2) + q
	}
	return float32(s) - q
}

// offset returns the table index of offset (dc,dr), which must lie within
// reach, and its azimuth in sectors.
func (m *Model) offset(dc, dr int) (int, float32) {
	o := abs(dr)*(m.rc+1) + abs(dc)
	return o, quadrantU(m.offU[o], dc, dr, m.p.Sectors)
}

// azU returns the metric azimuth of offset (dc,dr) in sectors, in [0,S):
// the midline of sector k lies at k+½. It computes what offset reads from
// the table, for offsets beyond reach.
func (m *Model) azU(dc, dr int) float32 {
	return quadrantU(m.azQ(abs(dc), abs(dr)), dc, dr, m.p.Sectors)
}

// buildPyramid builds the min/max elevation pyramid of the ground under
// targets (Model.top). It bounds the occluders too: top ≥ occ everywhere.
func (m *Model) buildPyramid() {
	W, H := m.t.Width, m.t.Height
	levels := bits.Len(uint(max(W, H)-1)) + 1
	m.zmin, m.zmax = make([][]float32, levels), make([][]float32, levels)
	m.cols = make([]int32, levels)
	for l := range levels {
		c, _ := quadsAcross(W, H, l)
		m.cols[l] = int32(c)
	}
	m.zmin[0], m.zmax[0] = m.top, m.top
	for l := 1; l < levels; l++ {
		cc, cr := quadsAcross(W, H, l-1)
		pc, pr := quadsAcross(W, H, l)
		lo, hi := make([]float32, pc*pr), make([]float32, pc*pr)
		clo, chi := m.zmin[l-1], m.zmax[l-1]
		for y := range pr {
			y0, y1 := 2*y, min(2*y+1, cr-1)
			for x := range pc {
				x0, x1 := 2*x, min(2*x+1, cc-1)
				lo[y*pc+x] = min(clo[y0*cc+x0], clo[y0*cc+x1], clo[y1*cc+x0], clo[y1*cc+x1])
				hi[y*pc+x] = max(chi[y0*cc+x0], chi[y0*cc+x1], chi[y1*cc+x0], chi[y1*cc+x1])
			}
		}
		m.zmin[l], m.zmax[l] = lo, hi
	}
}

// quadsAcross returns how many quads of side 2^l cells cover a width×height
// grid per row and per column.
func quadsAcross(width, height, l int) (cols, rows int) {
	s := 1 << l
	return (width + s - 1) / s, (height + s - 1) / s
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
