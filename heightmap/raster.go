package heightmap

import "errors"

// ErrNoGDAL is returned, in a build without cgo (CGO_ENABLED=0), by
// everything that needs libgdal: only .raw and .r16 heightmaps load there.
var ErrNoGDAL = errors.New("GDAL is unavailable in this build (CGO_ENABLED=0); only .raw and .r16 heightmaps load: rebuild with cgo and libgdal-dev")

// crsInfo is what the project needs to know of a raster's CRS.
type crsInfo struct {
	wkt           string
	name          string  // "EPSG:2253", or the CRS's name
	geographic    bool    // latitude/longitude
	projected     bool    // planar coordinates in a linear unit
	linearUnit    float64 // metres per CRS unit (projected)
	angularUnit   float64 // radians per CRS unit (geographic)
	semiMajor     float64 // ellipsoid semi-major axis, metres
	invFlattening float64
}

// rasterInfo is what GDAL says of a raster's first band.
type rasterInfo struct {
	driver          string
	width, height   int
	geoTransform    [6]float64
	hasGeoTransform bool
	crs             *crsInfo // nil when the raster has no CRS
	nodata          float64
	hasNodata       bool
	scale, offset   float64
	unitType        string // band's vertical unit ("m", "ft", ...), may be empty
	dataType        string // band's sample type, GDAL's name ("UInt16", "Float32", ...)
}
