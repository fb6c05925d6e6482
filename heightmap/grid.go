// Package heightmap loads digital elevation models (DEMs) into a regular grid
// of elevations in metres with metric cell spacing, the input of every later
// stage (thesis §3.1 computes visibility over such a heightmap).
//
// Headerless 16-bit RAW heightmaps exported by terrain editors load in pure
// Go; every raster GDAL reads (GeoTIFF, SRTM HGT, ESRI ASCII grid, 16-bit
// PNG, PDS, DTED…) loads in a program that imports heightmap/gdal, which
// registers GDAL as the raster Driver (as image/png registers a format):
//
//	import _ "github.com/frontiersets/frontiersets/heightmap/gdal"
//
// Horizontal spacing is derived from the CRS (see Load), heights are scaled
// to metres, and nodata cells are recorded and filled (see FillNodata). A
// grid with a CRS carries a LonLatGrid, which a store records, so that its
// readers place longitude and latitude without GDAL.
package heightmap

import (
	"errors"
	"fmt"
	"math"
)

// Errors returned by Load; match them with errors.Is.
var (
	ErrNotRaster = errors.New("not a raster GDAL can read")
	ErrEmpty     = errors.New("empty raster")
	ErrWindow    = errors.New("window outside the raster")
	ErrAllNodata = errors.New("every cell is nodata")
	ErrBands     = errors.New("several bands")
)

// Window is a rectangle of cells: columns Col…Col+Width-1 and rows
// Row…Row+Height-1 of a raster, row 0 at the top. The zero Window means the
// whole raster.
type Window struct {
	Col, Row, Width, Height int
}

// ParseWindow parses "col,row,width,height" (cells).
func ParseWindow(s string) (Window, error) {
	var w Window
	var extra string
	n, _ := fmt.Sscanf(s+" ", "%d,%d,%d,%d%s", &w.Col, &w.Row, &w.Width, &w.Height, &extra)
	if n != 4 || extra != "" {
		return w, fmt.Errorf("window %q: want col,row,width,height in cells", s)
	}
	if w.Col < 0 || w.Row < 0 || w.Width <= 0 || w.Height <= 0 {
		return w, fmt.Errorf("window %q: col and row must be ≥ 0, width and height > 0", s)
	}
	return w, nil
}

// String formats w as "col,row,width,height".
func (w Window) String() string {
	return fmt.Sprintf("%d,%d,%d,%d", w.Col, w.Row, w.Width, w.Height)
}

// check reports ErrWindow when w does not lie inside a width×height raster.
func (w Window) check(width, height int) error {
	// Compared without adding, which could overflow (a window of 2^62
	// columns from column 2^62 would wrap around to fit).
	if w.Col < 0 || w.Row < 0 || w.Width <= 0 || w.Height <= 0 ||
		w.Width > width || w.Height > height || w.Col > width-w.Width || w.Row > height-w.Height {
		return fmt.Errorf("%w: %s is not inside the %d×%d raster", ErrWindow, w, width, height)
	}
	return nil
}

// Georef is the georeferencing of a grid, kept so that outputs can be written
// on the same cells: a GDAL geotransform (x = gt[0] + col·gt[1] + row·gt[2],
// y = gt[3] + col·gt[4] + row·gt[5], in CRS units, for the grid's own
// top-left corner), the CRS as WKT ("" when unknown) and, when known,
// longitude and latitude over the grid's cells (LonLat; nil: the
// registered Driver transforms lon/lat).
type Georef struct {
	GeoTransform    [6]float64
	HasGeoTransform bool
	CRS             string
	LonLat          *LonLatGrid
	// Engine places the grid's cells in a game engine's world (nil: no
	// engine; pvsbake bake --engine).
	Engine *EngineFrame
	// Samples describes the heightmap under a grid of PVS cells (Coarsen);
	// the zero value: the grid's cells are the heightmap's samples.
	Samples Samples
}

// Samples is the heightmap under a grid of PVS cells: K×K samples a cell
// (PVS cell c covering samples c·K … c·K+K−1), Width×Height samples in
// all.
type Samples struct {
	K, Width, Height int
}

// Hull returns, in the fractional cells of a width×height grid on g (cell
// centres at whole numbers), the least and greatest position on each axis
// of the terrain: the hull of the heightmap's samples, from the first to
// the last. A position outside it is off the terrain, even where a cell's
// square (half a cell around its centre) or a PVS cell past the
// heightmap's edge reaches.
func (g Georef) Hull(width, height int) (lo, hi [2]float64) {
	s := g.Samples
	if s.K <= 1 || s.Width <= 0 || s.Height <= 0 {
		s = Samples{K: 1, Width: width, Height: height}
	}
	k := float64(s.K)
	off := (k - 1) / 2 // PVS cell c's centre is sample c·k + off
	lo = [2]float64{-off / k, -off / k}
	hi = [2]float64{(float64(s.Width-1) - off) / k, (float64(s.Height-1) - off) / k}
	return lo, hi
}

// Spacing says where a grid's metric cell spacing came from.
type Spacing string

const (
	SpacingProjected  Spacing = "projected"  // pixel size × the CRS's linear unit
	SpacingGeographic Spacing = "geographic" // metres per degree at the window's centre latitude
	SpacingCellSize   Spacing = "cell-size"  // given by the user (Options.CellSize)
	SpacingAssumed    Spacing = "assumed"    // pixel size taken as metres: no CRS, no cell size
)

// Grid is a DEM window in metres.
//
// Elev holds Width×Height elevations in metres, row-major with row 0 at the
// top (north for north-up rasters): the cell at column c, row r is
// Elev[r*Width+c]. Dx is the spacing between columns and Dy between rows, in
// metres. Nodata cells are marked in Nodata (same indexing; nil when there are
// none) and their Elev is filled from valid neighbours (FillNodata), so that
// they occlude plausibly; they must not be used as standing points.
type Grid struct {
	Width, Height int
	Elev          []float32
	Dx, Dy        float64
	Georef
	CRSName     string  // "EPSG:4326", the CRS's name, or "" when none
	Spacing     Spacing // where Dx, Dy came from
	ZScale      float64 // metres per stored height unit that was applied
	Nodata      []bool  // nil when NodataCount == 0
	NodataCount int
	// Implausible counts the nodata cells whose height lay outside
	// MinElevation to MaxElevation metres (counted in NodataCount too):
	// callers warn about them.
	Implausible int
	Source      string // path the grid was loaded from
	Window      Window // window of the source raster, in its cells
	SourceSize  [2]int // width, height of the whole source raster, cells
	Driver      string // GDAL driver short name, or "RAW"
	// Loaded are the options the grid was loaded with that are not in its
	// file (Window and Check left out): a store records them, so that the
	// DEM loads again as it was baked.
	Loaded Options
	// Heightmap is the grid whose k×k cells each of this grid's cells
	// covers, when this grid is its PVS cells (Coarsen), else nil.
	Heightmap *Grid
	// PVSCell is that k (0 when Heightmap is nil).
	PVSCell int
	// NoLonLat says, in a phrase, why a georeferenced grid with a CRS
	// carries no LonLat ("" when it does, or has no CRS): callers say so
	// once.
	NoLonLat string
}

// Index returns the index of cell (col,row) in Elev: row*Width + col.
func (g *Grid) Index(col, row int) int { return row*g.Width + col }

// In reports whether (col,row) is a cell of g.
func (g *Grid) In(col, row int) bool {
	return col >= 0 && row >= 0 && col < g.Width && row < g.Height
}

// IsNodata reports whether cell i (row*Width+col) had no data in the source.
func (g *Grid) IsNodata(i int) bool { return g.Nodata != nil && g.Nodata[i] }

// MinMax returns the lowest and highest elevation (metres) over the cells
// that have data, or NaN, NaN when none has.
func (g *Grid) MinMax() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, v := range g.Elev {
		if g.IsNodata(i) {
			continue
		}
		lo = math.Min(lo, float64(v))
		hi = math.Max(hi, float64(v))
	}
	if lo > hi {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

func nan() float64 { return math.NaN() }
