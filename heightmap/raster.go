package heightmap

import (
	"errors"
	"fmt"
	"sync"

	"github.com/frontiersets/frontiersets/internal/crs"
)

// ErrNoGDAL is returned by Load for a raster other than a headerless RAW
// heightmap, and by lon/lat transforms of a Georef without a LonLatGrid,
// when no raster driver is registered: a program that reads GeoTIFFs and
// the other GDAL formats imports heightmap/gdal (a cgo build with
// libgdal-dev).
var ErrNoGDAL = errors.New("this build has no GDAL (built without cgo, as the release archives are): it reads GeoTIFF (.tif), SRTM .hgt, .raw, .r16 and grayscale .png heightmaps; GDAL's other formats need a build with GDAL (make or go install with cgo and libgdal-dev, which imports github.com/frontiersets/frontiersets/heightmap/gdal)")

// CRSInfo is what the project needs to know of a raster's CRS.
type CRSInfo struct {
	WKT           string
	Name          string  // "EPSG:2253", or the CRS's name
	Geographic    bool    // latitude/longitude
	Projected     bool    // planar coordinates in a linear unit
	LinearUnit    float64 // metres per CRS unit (projected)
	AngularUnit   float64 // radians per CRS unit (geographic)
	SemiMajor     float64 // ellipsoid semi-major axis, metres
	InvFlattening float64
}

// RasterInfo is what a Driver reports of a raster and the band it reads.
type RasterInfo struct {
	Driver          string // the format's short name ("GTiff")
	Width, Height   int    // cells
	GeoTransform    [6]float64
	HasGeoTransform bool
	CRS             *CRSInfo // nil when the raster has no CRS
	Nodata          float64
	HasNodata       bool
	Scale, Offset   float64 // the band's: stored value × Scale + Offset
	UnitType        string  // band's vertical unit ("m", "ft", ...), may be empty
	DataType        string  // band's sample type, GDAL's name ("UInt16", "Float32", ...)
}

// Driver is what Load and Georef's lon/lat transforms need of a raster
// library; package heightmap/gdal registers GDAL's when imported.
type Driver struct {
	// Read opens the raster at path read-only, describes band (from 1;
	// 0: the only band, an error naming the bands when there are
	// several), calls plan with that description and reads the window
	// plan returns as float32 cells, row-major, before any unit
	// conversion or nodata handling. Plan's error aborts the read before
	// any cell is allocated.
	Read func(path string, band int, plan func(RasterInfo) (Window, error)) (RasterInfo, []float32, error)
	// Transform converts the points (x[i], y[i]) in place between
	// longitude/latitude in degrees on WGS 84 and the CRS crsWKT, both in
	// GIS order (x is the longitude or the easting).
	Transform func(crsWKT string, toLonLat bool, x, y []float64) error
}

var driver struct {
	sync.RWMutex
	d Driver
}

// RegisterDriver makes d the driver of Load and of the lon/lat transforms,
// for rasters other than RAW heightmaps. Package heightmap/gdal calls it
// in its init; it is safe for concurrent use.
func RegisterDriver(d Driver) {
	driver.Lock()
	driver.d = d
	driver.Unlock()
}

func registered() Driver {
	driver.RLock()
	defer driver.RUnlock()
	return driver.d
}

// transformer returns d's Transform or, without one, one through package crs: the CRSs it knows (geographic, UTM,
// Transverse Mercator, Lambert Conformal Conic and Web Mercator on
// WGS 84, NAD83, ETRS89, RGF93 and GDA datums); others get an error
// wrapping ErrNoGDAL.
func (d Driver) transformer() transformFunc {
	if d.Transform != nil {
		return d.Transform
	}
	return pureTransform
}

// transformFunc is Driver.Transform's signature.
type transformFunc = func(crsWKT string, toLonLat bool, x, y []float64) error

func pureTransform(wkt string, toLonLat bool, x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("heightmap: transform %d x and %d y coordinates", len(x), len(y))
	}
	c, err := crs.Parse(wkt)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoGDAL, err)
	}
	if toLonLat {
		err = c.ToLonLat(x, y)
	} else {
		err = c.FromLonLat(x, y)
	}
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoGDAL, err)
	}
	return nil
}
