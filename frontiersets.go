// Package frontiersets is the toolkit's front door: bake a DEM into a store
// of potentially visible sets (Bake), open a store (Open) and ask it for
// frontier sets (Store.Frontier), with players located by cell or by
// position in fractional cells, by map coordinates in the DEM's CRS, by
// longitude and latitude, or by world position in a game engine's units (a
// store baked with an engine frame). Reading stores needs neither cgo nor
// GDAL (a bake records a lon/lat lattice); loading a GeoTIFF to bake needs
// heightmap/gdal imported (cgo and libgdal-dev).
//
// A frontier set (thesis §3.5) is two regions, one around each of two
// players, such that no point of one sees any point of the other: while
// both players stay inside, neither needs the other's updates. The parts
// live in their own packages — horizon (per-point visibility, §3.1),
// quadpvs (predictive quadtrees and merges, §3.2–3.3), compress (node
// budgets and the store, §3.4), grow (frontier growing, §3.5), interest
// (frontier sets for whole matches), heightmap (DEM input) — and this
// package joins them for the common cases.
//
// Cells are (col, row) on the store's grid, 0-based from its top-left
// corner; index row*Width+col in every row-major slice.
package frontiersets

import (
	"math"
	"sync"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Store is an opened PVS store: its hierarchy of PVSs, elevations and
// georeferencing, read in place from the file's mapping, and a grower for
// frontier queries. It hands out copies (Info, Elevation, PVS), never the
// mapping itself. All its methods are safe for concurrent use, but Close.
type Store struct {
	st      *compress.Store
	grower  *grow.Grower
	scratch sync.Pool // *grow.Scratch
}

// Info describes a store: its grid, how it was baked and what its cap kept.
type Info struct {
	Width, Height int     // cells
	DxM, DyM      float64 // metres between columns, between rows
	// GeoTransform maps a fractional cell (u, v) from the grid's top-left
	// corner to map coordinates: x = gt[0] + u·gt[1] + v·gt[2],
	// y = gt[3] + u·gt[4] + v·gt[5] (when HasGeoTransform).
	GeoTransform    [6]float64
	HasGeoTransform bool
	CRS             string // WKT; "" when unknown
	CRSName         string // "EPSG:32619", the CRS's name, or ""
	// Params are the visibility parameters the store was baked with:
	// the model (Params.LOS: sector, conservative or region), the sectors,
	// the observer and target heights and view distance in metres, and
	// the PVS cell (Params.PVSCell heightmap cells a side; 0 or 1: the
	// heightmap's own).
	Params horizon.Params
	// Model names the model and its version ("region v4").
	Model string
	// Coded reports a coded store (trees entropy-coded, decoded when a
	// query reads them) rather than a flat one.
	Coded bool
	// BudgetBytes is the memory budget the store was capped to (0: capped
	// at a node count instead); StoredBytes what its trees take in the
	// file.
	BudgetBytes, StoredBytes int64
	// Quads is the number of PVSs (one per quad of every level, §3.2);
	// HiddenKept the share of hidden cells the cap kept, over the bake's
	// sample (1: all).
	Quads      int
	HiddenKept float64
}

// Open opens the store file at path (written by Bake or `pvsbake bake`).
// A store of the current format is read in place from a shared mapping of
// the file (compress.Open): opening reads the header, the grid and the
// statistics, and each PVS is checked when a query first reads it, so
// that a large store opens at once and its memory follows what queries
// read. A PVS that fails its checks reads as hiding nothing (a smaller
// frontier set, never a wrong one) and Err reports it; a file truncated or
// changed while open makes queries return an error wrapping ErrFault
// instead of crashing. Close releases the mapping. Errors name path: a
// missing file, ErrNotStore, or a *FormatError with the byte offset of
// what is wrong.
func Open(path string) (*Store, error) {
	s, gr, err := bake.OpenGrower(path)
	if err != nil {
		return nil, err
	}
	st := &Store{st: s, grower: gr}
	st.scratch.New = func() any { return new(grow.Scratch) }
	return st, nil
}

// Close releases the store's file mapping; the store must not be used
// afterwards.
func (s *Store) Close() error { return s.st.Close() }

// Err returns the first PVS that failed its checks when a query read it
// (it then read as hiding nothing), as a *FormatError with its file
// offset; nil when none did.
func (s *Store) Err() error { return s.st.Err() }

// Info returns the store's description (a copy).
func (s *Store) Info() Info {
	h := s.st.Header
	return Info{
		Width: h.Width, Height: h.Height, DxM: h.DxM, DyM: h.DyM,
		GeoTransform: h.GeoTransform, HasGeoTransform: h.HasGeoTransform, CRS: h.CRS, CRSName: h.CRSName,
		Params: h.Params.Horizon(), Model: h.Params.ModelName(), Coded: h.Encoding == compress.EncodingCoded,
		BudgetBytes: h.BudgetBytes, StoredBytes: s.st.Hierarchy.StoredBytes(),
		Quads: s.st.Quads, HiddenKept: s.st.HiddenKept,
	}
}

// Size returns the grid's width and height in cells.
func (s *Store) Size() (width, height int) { return s.st.Width, s.st.Height }

// Grower returns the store's grower, for queries with caller-owned scratch
// (grow.Grower.Grow) and for the interest managers (interest.New,
// interest.NewJoint).
func (s *Store) Grower() *grow.Grower { return s.grower }

// Frontier grows the frontier set of players at cells a and b ([col, row])
// with options opt (the zero value: the hierarchical method with lossless
// merges, §3.5). res.MutuallyVisible reports players who see each other,
// who have none, and players in one cell (a == b), who see each other.
// Errors: ErrOutside, ErrNodata (a player on a nodata cell), ErrOptions,
// ErrFault.
func (s *Store) Frontier(a, b [2]int, opt grow.Options) (grow.Result, error) {
	sc := s.scratch.Get().(*grow.Scratch)
	defer s.scratch.Put(sc)
	var res grow.Result
	err := s.grower.Grow(a, b, opt, sc, &res)
	return res, err
}

// PositionCell returns the cell whose square holds the position (x, y) in
// fractional cells (column, row; sample (c, r) at (c, r), its square
// reaching half a cell either side): the nearest sample, halves rounding
// up. A store of the region model (horizon.LOSRegion) keeps its frontier
// guarantee for every position in its cells' squares; the point models'
// for the samples alone. Errors: ErrOutside.
func (s *Store) PositionCell(x, y float64) (col, row int, err error) {
	w, h := s.st.Width, s.st.Height
	if !(x >= -0.5 && x < float64(w)-0.5 && y >= -0.5 && y < float64(h)-0.5) {
		return 0, 0, errOutside("frontiersets: position %g,%g is outside the %d×%d grid (cells -0.5 to %g, -0.5 to %g)",
			x, y, w, h, float64(w)-0.5, float64(h)-0.5)
	}
	return int(math.Floor(x + 0.5)), int(math.Floor(y + 0.5)), nil
}

// FrontierAt is Frontier for players at positions a and b in fractional
// cells (PositionCell). Errors: as Frontier.
func (s *Store) FrontierAt(a, b [2]float64, opt grow.Options) (grow.Result, error) {
	ac, ar, err := s.PositionCell(a[0], a[1])
	if err != nil {
		return grow.Result{}, err
	}
	bc, br, err := s.PositionCell(b[0], b[1])
	if err != nil {
		return grow.Result{}, err
	}
	return s.Frontier([2]int{ac, ar}, [2]int{bc, br}, opt)
}

// Georef returns the store's georeferencing: the grid's geotransform, CRS
// and lon/lat lattice (shared: read only).
func (s *Store) Georef() heightmap.Georef {
	return s.st.Header.Georef()
}

// CellToMap returns the map coordinates (CRS units) of the centre of cell
// (col, row). Errors: ErrNoGeoref, ErrOutside.
func (s *Store) CellToMap(col, row int) (x, y float64, err error) {
	if err := s.checkCell(col, row); err != nil {
		return 0, 0, err
	}
	return s.Georef().CellToMap(col, row)
}

// MapToCell returns the cell holding map point (x, y) in CRS units.
// Errors: ErrNoGeoref, ErrOutside (naming the grid's extent).
func (s *Store) MapToCell(x, y float64) (col, row int, err error) {
	col, row, err = s.Georef().MapToCell(x, y, s.st.Width, s.st.Height)
	return col, row, outside(err)
}

// CellToLonLat returns the longitude and latitude in degrees (WGS 84) of
// the centre of cell (col, row), through the lon/lat lattice the store
// records (heightmap.LonLatGrid: GDAL's transform at bake time,
// interpolated within a millimetre), with no GDAL needed. Errors: as
// CellToMap, ErrNoCRS, and ErrNoGDAL for a store baked before stores
// recorded the lattice, in a program without heightmap/gdal.
func (s *Store) CellToLonLat(col, row int) (lon, lat float64, err error) {
	x, y, err := s.CellToMap(col, row)
	if err != nil {
		return 0, 0, err
	}
	return s.Georef().MapToLonLat(x, y)
}

// LonLatToCell returns the cell holding the point at longitude lon and
// latitude lat in degrees (WGS 84), through the store's lon/lat lattice as
// CellToLonLat. Errors: ErrNoCRS, ErrNoGeoref, ErrNoGDAL (as
// CellToLonLat), ErrOutside.
func (s *Store) LonLatToCell(lon, lat float64) (col, row int, err error) {
	ref := s.Georef()
	if !ref.HasGeoTransform {
		return 0, 0, heightmap.ErrNoGeoref
	}
	x, y, err := ref.LonLatToMap(lon, lat)
	if err != nil {
		return 0, 0, outside(err)
	}
	col, row, err = ref.MapToCell(x, y, s.st.Width, s.st.Height)
	return col, row, outside(err)
}

// WorldToPosition returns the position in fractional cells (as
// PositionCell and FrontierAt take it) of world position (a, b) in the
// game engine's units and horizontal axes the store was baked with
// (pvsbake bake --engine; heightmap.EngineFrame: Unity x, z in metres,
// Unreal X, Y in centimetres). Errors: ErrNoEngine, ErrOutside (naming the
// world bounds).
func (s *Store) WorldToPosition(a, b float64) (x, y float64, err error) {
	x, y, err = s.Georef().WorldToPosition(a, b, s.st.Width, s.st.Height)
	return x, y, outside(err)
}

// CellToWorld returns the world position of cell (col, row)'s centre in
// the engine's units and axes. Errors: ErrNoEngine, ErrOutside.
func (s *Store) CellToWorld(col, row int) (a, b float64, err error) {
	if err := s.checkCell(col, row); err != nil {
		return 0, 0, err
	}
	f := s.st.Engine
	if f == nil {
		return 0, 0, ErrNoEngine
	}
	a, b = f.World(float64(col), float64(row))
	return a, b, nil
}

// FrontierAtWorld is Frontier for players at world positions a and b
// (WorldToPosition). Errors: as Frontier and WorldToPosition.
func (s *Store) FrontierAtWorld(a, b [2]float64, opt grow.Options) (grow.Result, error) {
	ax, ay, err := s.WorldToPosition(a[0], a[1])
	if err != nil {
		return grow.Result{}, err
	}
	bx, by, err := s.WorldToPosition(b[0], b[1])
	if err != nil {
		return grow.Result{}, err
	}
	return s.FrontierAt([2]float64{ax, ay}, [2]float64{bx, by}, opt)
}

// Elevation returns the ground's height at cell (col, row) in metres, as
// baked (nodata cells hold the filled value the bake used). Errors:
// ErrOutside.
func (s *Store) Elevation(col, row int) (float64, error) {
	if err := s.checkCell(col, row); err != nil {
		return 0, err
	}
	return float64(s.st.Elev[row*s.st.Width+col]), nil
}

// Nodata reports whether cell (col, row) had no data in the DEM (a player
// cannot stand there). Errors: ErrOutside.
func (s *Store) Nodata(col, row int) (bool, error) {
	if err := s.checkCell(col, row); err != nil {
		return false, err
	}
	return s.st.Nodata != nil && s.st.Nodata[row*s.st.Width+col], nil
}

func (s *Store) checkCell(col, row int) error {
	if col < 0 || row < 0 || col >= s.st.Width || row >= s.st.Height {
		return errOutside("frontiersets: cell %d,%d is outside the %d×%d grid", col, row, s.st.Width, s.st.Height)
	}
	return nil
}

// Cell values of a PVS mask (Store.PVS), as the C library's FS_HIDDEN,
// FS_UNKNOWN and FS_VISIBLE.
const (
	PVSHidden  = 0
	PVSUnknown = 128 // reserved: stored PVSs hold PVSVisible and PVSHidden only
	PVSVisible = 255
)

// PVS returns the stored PVS of cell (col, row) as a mask of Width×Height
// bytes, row-major (cell (c, r) at r·Width+c): PVSVisible or PVSHidden —
// the cap of §3.4 turns the hidden cells it drops visible, "possibly
// visible" —, reusing dst's memory when it is large enough. Errors:
// ErrOutside, ErrFault.
func (s *Store) PVS(col, row int, dst []byte) (mask []byte, err error) {
	if err := s.checkCell(col, row); err != nil {
		return dst, err
	}
	defer fault.Recover(&err, fault.Arm())
	w, h := s.st.Width, s.st.Height
	if cap(dst) < w*h {
		dst = make([]byte, w*h)
	}
	m := dst[:w*h]
	clear(m)
	hi := s.st.Hierarchy
	t := hi.PVS(hi.QuadIndex(0, col, row))
	var walk quadpvs.Walker
	walk.Leaves(hi.G, &t, func(st quadpvs.Status, l, x, y int) {
		v := byte(PVSVisible)
		switch st {
		case quadpvs.Hidden:
			return
		case quadpvs.Unknown:
			v = PVSUnknown
		}
		for r := y << l; r < min((y+1)<<l, h); r++ {
			for c := x << l; c < min((x+1)<<l, w); c++ {
				m[r*w+c] = v
			}
		}
	})
	return m, nil
}
