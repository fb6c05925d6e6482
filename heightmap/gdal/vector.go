package gdal

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
)

// MaskStyle is how a byte mask (WriteMask) shows in a GIS: the colour of each
// listed value in the GeoTIFF's colour table (others transparent black) and,
// when HasNodata, the value that means "no data" (drawn transparent).
type MaskStyle struct {
	Colors    map[uint8]color.RGBA
	Nodata    uint8
	HasNodata bool
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
func WriteRegions(path string, ref heightmap.Georef, width, height int, data []byte, labels map[byte]string) (int, error) {
	if len(data) != width*height || width <= 0 || height <= 0 {
		return 0, fmt.Errorf("gdal: regions of %d bytes for a %d×%d grid", len(data), width, height)
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
		return Points{}, fmt.Errorf("gdal: %s: %w", path, err)
	}
	return p, nil
}

// SameCRS reports whether two CRSs given as WKT are the same (GDAL's
// OSRIsSame; without cgo, equal strings).
func SameCRS(a, b string) bool { return sameCRS(a, b) }
