package heightmap

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/frontiersets/frontiersets/internal/atomicfile"
)

// ErrNoCRS reports lon/lat asked of a grid whose CRS is unknown.
var ErrNoCRS = errors.New("heightmap: the grid has no CRS, so lon/lat cannot be placed on it; give cells or map x,y instead")

// MaskStyle is how a byte mask (WriteMask) shows in a GIS: the colour of each
// listed value in the GeoTIFF's colour table (others transparent black) and,
// when HasNodata, the value that means "no data" (drawn transparent).
type MaskStyle struct {
	Colors    map[uint8]color.RGBA
	Nodata    uint8
	HasNodata bool
}

// LonLatToMap returns the map coordinates (CRS units) of a point given in
// degrees of longitude and latitude on WGS 84, through GDAL's coordinate
// transformation. Errors: ErrNoCRS, a longitude outside −180…180 or a
// latitude outside −90…90, or GDAL's message when it cannot transform.
func (g Georef) LonLatToMap(lon, lat float64) (x, y float64, err error) {
	if g.CRS == "" {
		return 0, 0, ErrNoCRS
	}
	if !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90) {
		return 0, 0, fmt.Errorf("lon/lat %g,%g: want longitude −180 to 180 and latitude −90 to 90 degrees", lon, lat)
	}
	return transformLonLat(g.CRS, false, lon, lat)
}

// MapToLonLat returns the longitude and latitude in degrees on WGS 84 of a
// map point (CRS units). Errors as LonLatToMap.
func (g Georef) MapToLonLat(x, y float64) (lon, lat float64, err error) {
	if g.CRS == "" {
		return 0, 0, ErrNoCRS
	}
	lon, lat, err = transformLonLat(g.CRS, true, x, y)
	if err == nil && (math.IsNaN(lon) || math.IsNaN(lat) || math.IsInf(lon, 0) || math.IsInf(lat, 0)) {
		err = fmt.Errorf("map point %g,%g has no lon/lat in the grid's CRS", x, y)
	}
	return lon, lat, err
}

// WriteRegions traces the regions of equal non-zero value of data
// (width×height bytes, row-major, data[row*width+col]) as polygons, through
// GDAL's polygonize (4-connected cells, holes kept), and writes them to a
// vector file in ref's CRS: GeoJSON for a path ending in .geojson or .json,
// a GeoPackage for .gpkg. Each polygon has the fields value (the byte) and
// side (labels[value], empty when absent). Without a geotransform the
// coordinates are cells (x = col, y = row). The file is written beside path
// and renamed over it, so an interrupted write leaves nothing half-written.
// It returns the number of polygons; errors name path and give GDAL's
// message.
func WriteRegions(path string, ref Georef, width, height int, data []byte, labels map[byte]string) (int, error) {
	if len(data) != width*height || width <= 0 || height <= 0 {
		return 0, fmt.Errorf("heightmap: regions of %d bytes for a %d×%d grid", len(data), width, height)
	}
	ext := strings.ToLower(filepath.Ext(path))
	driver := map[string]string{".geojson": "GeoJSON", ".json": "GeoJSON", ".gpkg": "GPKG"}[ext]
	if driver == "" {
		return 0, fmt.Errorf("write %s: want a name ending in .geojson or .gpkg (the format follows the extension)", path)
	}
	// GDAL creates the file itself (GeoJSON and GPKG refuse an existing
	// one): a sidecar of a locked temporary file, so that the next write
	// of path removes what a killed writer left and no living one's.
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return 0, err
	}
	name := tmp.Sidecar(ext)
	n, err := polygonize(name, driver, ref, width, height, data, labels)
	if err != nil {
		os.Remove(name)
		tmp.Abort()
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return n, tmp.CommitSidecar(name)
}

// Points are point features read from a vector file (ReadPoints): X[i] and
// Y[i] in the layer's CRS (x is the easting or the longitude), and that CRS
// as WKT ("" when the file names none). Geographic reports a CRS of
// latitude and longitude (GeoJSON's default, WGS 84).
type Points struct {
	X, Y       []float64
	CRS        string
	Geographic bool
}

// ReadPoints reads the point features of the first layer of a vector file
// GDAL reads (GeoPackage, GeoJSON, Shapefile, …), at most maxPoints of
// them. Errors name path: a file GDAL cannot read, a feature that is not a
// point (by its index, from 0), more than maxPoints points, or ErrNoGDAL in
// a build without cgo.
func ReadPoints(path string, maxPoints int) (Points, error) {
	p, err := readPoints(path, maxPoints)
	if err != nil {
		return Points{}, fmt.Errorf("heightmap: %s: %w", path, err)
	}
	return p, nil
}

// SameCRS reports whether two CRSs given as WKT are the same (GDAL's
// OSRIsSame; without cgo, equal strings).
func SameCRS(a, b string) bool { return sameCRS(a, b) }
