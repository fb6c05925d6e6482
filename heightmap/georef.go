package heightmap

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoCRS reports lon/lat asked of a grid whose CRS is unknown.
var ErrNoCRS = errors.New("heightmap: the grid has no CRS, so lon/lat cannot be placed on it; give cells or map x,y instead")

// ErrOutside is wrapped by the errors of a point or position off the grid.
var ErrOutside = errors.New("outside the grid")

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
// grid (wrapping ErrOutside), naming the grid's map extent.
func (g Georef) MapToCell(x, y float64, width, height int) (col, row int, err error) {
	if !g.HasGeoTransform {
		return 0, 0, ErrNoGeoref
	}
	c, r, err := g.mapToFrac(x, y)
	if err != nil {
		return 0, 0, err
	}
	if !(c >= 0 && c < float64(width) && r >= 0 && r < float64(height)) {
		x0, y0, x1, y1 := g.Extent(width, height)
		return 0, 0, fmt.Errorf("map point %s,%s is %w: x %s to %s, y %s to %s",
			fmtCoord(x), fmtCoord(y), ErrOutside, fmtCoord(x0), fmtCoord(x1), fmtCoord(y0), fmtCoord(y1))
	}
	return int(c), int(r), nil
}

// LonLatToMap returns the map coordinates (CRS units) of a point given in
// degrees of longitude and latitude on WGS 84: through g.LonLat when set,
// else through the registered Driver (GDAL's coordinate transformation).
// Errors: ErrNoCRS, a longitude outside −180…180 or a latitude outside
// −90…90, ErrNoGDAL without a lattice or a driver, or the driver's message
// when it cannot transform.
func (g Georef) LonLatToMap(lon, lat float64) (x, y float64, err error) {
	if g.CRS == "" {
		return 0, 0, ErrNoCRS
	}
	if !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90) {
		return 0, 0, fmt.Errorf("lon/lat %g,%g: want longitude −180 to 180 and latitude −90 to 90 degrees", lon, lat)
	}
	if g.LonLat != nil && g.HasGeoTransform {
		u, v, err := g.LonLat.Cell(lon, lat)
		if err != nil {
			return 0, 0, err
		}
		x, y = g.at(u, v)
		return x, y, nil
	}
	return transform(g.CRS, false, lon, lat)
}

// MapToLonLat returns the longitude and latitude in degrees on WGS 84 of a
// map point (CRS units). Errors as LonLatToMap.
func (g Georef) MapToLonLat(x, y float64) (lon, lat float64, err error) {
	if g.CRS == "" {
		return 0, 0, ErrNoCRS
	}
	if g.LonLat != nil && g.HasGeoTransform {
		u, v, err := g.mapToFrac(x, y)
		if err != nil {
			return 0, 0, err
		}
		lon, lat = g.LonLat.LonLat(u, v)
	} else if lon, lat, err = transform(g.CRS, true, x, y); err != nil {
		return 0, 0, err
	}
	if math.IsNaN(lon) || math.IsNaN(lat) || math.IsInf(lon, 0) || math.IsInf(lat, 0) {
		return 0, 0, fmt.Errorf("map point %g,%g has no lon/lat in the grid's CRS", x, y)
	}
	return lon, lat, nil
}

// transform converts one point through the registered Driver, or
// without one through package crs.
func transform(crs string, toLonLat bool, x, y float64) (float64, float64, error) {
	tr := registered().transformer()
	xs, ys := []float64{x}, []float64{y}
	if err := tr(crs, toLonLat, xs, ys); err != nil {
		return 0, 0, err
	}
	return xs[0], ys[0], nil
}

// mapToFrac returns the fractional cell (u, v) from the grid's top-left
// corner of map point (x, y): the inverse geotransform.
func (g Georef) mapToFrac(x, y float64) (u, v float64, err error) {
	gt := g.GeoTransform
	det := gt[1]*gt[5] - gt[2]*gt[4]
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return 0, 0, fmt.Errorf("heightmap: geotransform %v cannot be inverted", gt)
	}
	dx, dy := x-gt[0], y-gt[3]
	return (gt[5]*dx - gt[2]*dy) / det, (-gt[4]*dx + gt[1]*dy) / det, nil
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
