// Package frontiersets is the toolkit's front door: bake a DEM into a store
// of potentially visible sets (Bake), open a store (Open) and ask it for
// frontier sets (Store.Frontier), with players located by cell, by map
// coordinates in the DEM's CRS or by longitude and latitude.
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
	"fmt"
	"math"
	"sync"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/bake"
)

// Store is an opened PVS store: its decoded hierarchy, elevations and
// georeferencing (the embedded compress.Store) and a grower for frontier
// queries. All its methods are safe for concurrent use.
type Store struct {
	*compress.Store
	grower  *grow.Grower
	scratch sync.Pool // *grow.Scratch
}

// Open opens the store file at path (written by Bake or `pvsbake bake`).
// A store of the current format is read in place from a shared mapping of
// the file (compress.Open): opening reads the header, the grid and the
// statistics, and each PVS is checked when a query first reads it, so
// that a large store opens at once and its memory follows what queries
// read. A PVS that fails its checks reads as hiding nothing (a smaller
// frontier set, never a wrong one) and Err reports it; a file truncated or
// changed while open makes queries return an error wrapping
// fault.ErrFault instead of crashing. Close releases the mapping. Errors
// name path: a missing file, or a *compress.FormatError with the byte
// offset of what is wrong.
func Open(path string) (*Store, error) {
	s, err := bake.OpenStore(path)
	if err != nil {
		return nil, err
	}
	return newStore(s, path)
}

func newStore(s *compress.Store, path string) (*Store, error) {
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st := &Store{Store: s, grower: gr}
	st.scratch.New = func() any { return new(grow.Scratch) }
	return st, nil
}

// Grower returns the store's grower, for queries with caller-owned scratch
// (grow.Grower.Grow) and for the interest managers (interest.NewManager,
// interest.NewJoint).
func (s *Store) Grower() *grow.Grower { return s.grower }

// Frontier grows the frontier set of players at cells a and b ([col, row])
// with options opt (the zero value: the hierarchical method with lossless
// merges, §3.5). res.MutuallyVisible reports players who see each other,
// who have none. Errors: a cell outside the grid or on nodata, a == b.
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
// for the samples alone. Errors: a position outside the grid.
func (s *Store) PositionCell(x, y float64) (col, row int, err error) {
	if !(x >= -0.5 && x < float64(s.Width)-0.5 && y >= -0.5 && y < float64(s.Height)-0.5) {
		return 0, 0, fmt.Errorf("frontiersets: position %g,%g is outside the %d×%d grid (cells -0.5 to %g, -0.5 to %g)",
			x, y, s.Width, s.Height, float64(s.Width)-0.5, float64(s.Height)-0.5)
	}
	return int(math.Floor(x + 0.5)), int(math.Floor(y + 0.5)), nil
}

// FrontierAt is Frontier for players at positions a and b in fractional
// cells (PositionCell). Errors: as Frontier, and a position outside the
// grid.
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

// Georef returns the store's georeferencing: the DEM window's geotransform
// and CRS.
func (s *Store) Georef() heightmap.Georef {
	return s.Header.Georef()
}

// CellToMap returns the map coordinates (CRS units) of the centre of cell
// (col, row). Errors: heightmap.ErrNoGeoref, a cell outside the grid.
func (s *Store) CellToMap(col, row int) (x, y float64, err error) {
	if err := s.checkCell(col, row); err != nil {
		return 0, 0, err
	}
	return s.Georef().CellToMap(col, row)
}

// MapToCell returns the cell holding map point (x, y) in CRS units.
// Errors: heightmap.ErrNoGeoref, a point outside the grid (naming the
// grid's extent).
func (s *Store) MapToCell(x, y float64) (col, row int, err error) {
	return s.Georef().MapToCell(x, y, s.Width, s.Height)
}

// CellToLonLat returns the longitude and latitude in degrees (WGS 84) of
// the centre of cell (col, row), through the lon/lat lattice the store
// records (heightmap.LonLatGrid: GDAL's transform at bake time,
// interpolated within a millimetre), with no GDAL needed. Errors: as
// CellToMap, heightmap.ErrNoCRS, and heightmap.ErrNoGDAL for a store baked
// before stores recorded the lattice, in a program without heightmap/gdal.
func (s *Store) CellToLonLat(col, row int) (lon, lat float64, err error) {
	x, y, err := s.CellToMap(col, row)
	if err != nil {
		return 0, 0, err
	}
	return s.Georef().MapToLonLat(x, y)
}

// LonLatToCell returns the cell holding the point at longitude lon and
// latitude lat in degrees (WGS 84), through the store's lon/lat lattice as
// CellToLonLat. Errors: heightmap.ErrNoCRS, heightmap.ErrNoGeoref,
// heightmap.ErrNoGDAL (as CellToLonLat), a point outside the grid.
func (s *Store) LonLatToCell(lon, lat float64) (col, row int, err error) {
	ref := s.Georef()
	if !ref.HasGeoTransform {
		return 0, 0, heightmap.ErrNoGeoref
	}
	x, y, err := ref.LonLatToMap(lon, lat)
	if err != nil {
		return 0, 0, err
	}
	return ref.MapToCell(x, y, s.Width, s.Height)
}

// Elevation returns the ground's height at cell (col, row) in metres, as
// baked (nodata cells hold the filled value the bake used). Errors: a cell
// outside the grid.
func (s *Store) Elevation(col, row int) (float64, error) {
	if err := s.checkCell(col, row); err != nil {
		return 0, err
	}
	return float64(s.Elev[row*s.Width+col]), nil
}

func (s *Store) checkCell(col, row int) error {
	if col < 0 || row < 0 || col >= s.Width || row >= s.Height {
		return fmt.Errorf("frontiersets: cell %d,%d is outside the %d×%d grid", col, row, s.Width, s.Height)
	}
	return nil
}
