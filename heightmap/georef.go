package heightmap

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoGeoref reports map or lon/lat coordinates asked of a grid that has no
// geotransform (a headerless RAW file, a plain PNG): only cells locate
// points on it.
var ErrNoGeoref = errors.New("heightmap: the grid has no georeferencing (no geotransform); give cells instead")

// CellToMap returns the map coordinates (CRS units, e.g. metres east and
// north in UTM, degrees in EPSG:4326) of the centre of cell (col, row) of a
// grid with this georeferencing: the geotransform at (col+0.5, row+0.5).
// Without a geotransform it returns ErrNoGeoref.
func (g Georef) CellToMap(col, row int) (x, y float64, err error) {
	if !g.HasGeoTransform {
		return 0, 0, ErrNoGeoref
	}
	gt := g.GeoTransform
	c, r := float64(col)+0.5, float64(row)+0.5
	return gt[0] + c*gt[1] + r*gt[2], gt[3] + c*gt[4] + r*gt[5], nil
}

// MapToCell returns the cell of a width×height grid with this georeferencing
// that holds the map point (x, y) in CRS units: the inverse geotransform,
// floored. Errors: ErrNoGeoref; a singular geotransform; a point outside the
// grid, naming the grid's map extent.
func (g Georef) MapToCell(x, y float64, width, height int) (col, row int, err error) {
	if !g.HasGeoTransform {
		return 0, 0, ErrNoGeoref
	}
	gt := g.GeoTransform
	det := gt[1]*gt[5] - gt[2]*gt[4]
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return 0, 0, fmt.Errorf("heightmap: geotransform %v cannot be inverted", gt)
	}
	dx, dy := x-gt[0], y-gt[3]
	c := (gt[5]*dx - gt[2]*dy) / det
	r := (-gt[4]*dx + gt[1]*dy) / det
	if !(c >= 0 && c < float64(width) && r >= 0 && r < float64(height)) {
		x0, y0, x1, y1 := g.Extent(width, height)
		return 0, 0, fmt.Errorf("map point %s,%s is outside the grid: x %s to %s, y %s to %s",
			fmtCoord(x), fmtCoord(y), fmtCoord(x0), fmtCoord(x1), fmtCoord(y0), fmtCoord(y1))
	}
	return int(c), int(r), nil
}

// Extent returns the bounding box of a width×height grid in map
// coordinates: the smallest and largest x and y over its four corners.
func (g Georef) Extent(width, height int) (x0, y0, x1, y1 float64) {
	gt := g.GeoTransform
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{0, 0}, {float64(width), 0}, {0, float64(height)}, {float64(width), float64(height)}} {
		x := gt[0] + c[0]*gt[1] + c[1]*gt[2]
		y := gt[3] + c[0]*gt[4] + c[1]*gt[5]
		x0, x1 = min(x0, x), max(x1, x)
		y0, y1 = min(y0, y), max(y1, y)
	}
	return x0, y0, x1, y1
}

// fmtCoord prints a map coordinate with the digits that matter: metres to
// the millimetre, degrees to about a centimetre.
func fmtCoord(v float64) string {
	if math.Abs(v) <= 360 {
		return fmt.Sprintf("%.7f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
