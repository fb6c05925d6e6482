package heightmap

// MetresPerDegree exposes metresPerDegree to the external tests.
var MetresPerDegree = metresPerDegree

// LoadPNG exposes loadPNG, the reader of builds without GDAL, to the
// external tests (which register GDAL).
func LoadPNG(path string, opt Options) (*Grid, error) { return loadPNG(path, opt) }
