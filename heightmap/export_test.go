package heightmap

// MetresPerDegree exposes metresPerDegree to the external tests.
var MetresPerDegree = metresPerDegree

// LoadPNG exposes loadPNG, the reader of builds without GDAL, to the
// external tests (which register GDAL).
func LoadPNG(path string, opt Options) (*Grid, error) { return loadPNG(path, opt) }

// LoadWithoutGDAL is Load as a build without GDAL runs it (the pure-Go
// GeoTIFF and HGT readers, package crs for lon/lat), for the external
// tests, which register GDAL.
func LoadWithoutGDAL(path string, opt Options) (*Grid, error) {
	g, err := load(path, opt, Driver{})
	if err != nil {
		return nil, err
	}
	g.Loaded = opt
	g.Loaded.Window, g.Loaded.Check = Window{}, nil
	return g, nil
}

// NewLonLatGridWithoutGDAL is NewLonLatGrid as a build without GDAL runs
// it (package crs's conversions).
func NewLonLatGridWithoutGDAL(ref Georef, width, height int) (*LonLatGrid, error) {
	return newLonLatGrid(ref, width, height, Driver{}.transformer())
}
