//go:build !cgo

package heightmap

// Without cgo there is no libgdal: only headerless RAW heightmaps (.raw,
// .r16) load, and everything else that needs GDAL returns ErrNoGDAL. This
// keeps the cgo-free packages' tests buildable for other architectures
// (GOARCH=arm64 under qemu-user-static, make test-portable).

import "fmt"

func gdalRead(string, Window, int, func(rasterInfo, Window) error) (rasterInfo, []float32, error) {
	return rasterInfo{}, nil, ErrNoGDAL
}

// CRSFromEPSG needs GDAL: ErrNoGDAL.
func CRSFromEPSG(code int) (string, error) {
	return "", fmt.Errorf("heightmap: EPSG:%d: %w", code, ErrNoGDAL)
}

// WriteMask needs GDAL: ErrNoGDAL.
func WriteMask(path string, _ Georef, _, _ int, _ []byte, _ *MaskStyle) error {
	return fmt.Errorf("write %s: %w", path, ErrNoGDAL)
}

// WriteElevation needs GDAL: ErrNoGDAL.
func WriteElevation(path string, _ *Grid) error {
	return fmt.Errorf("write %s: %w", path, ErrNoGDAL)
}

// GDALViewshed needs GDAL; NewGDALViewshed returns ErrNoGDAL.
type GDALViewshed struct{}

// NewGDALViewshed needs GDAL: ErrNoGDAL.
func NewGDALViewshed(*Grid) (*GDALViewshed, error) {
	return nil, fmt.Errorf("heightmap: GDAL viewshed: %w", ErrNoGDAL)
}

// Viewshed is never reached: NewGDALViewshed fails without GDAL.
func (v *GDALViewshed) Viewshed(int, int, float64, float64, []byte) error { return ErrNoGDAL }

// Close does nothing.
func (v *GDALViewshed) Close() {}

func transformLonLat(string, bool, float64, float64) (float64, float64, error) {
	return 0, 0, ErrNoGDAL
}

func polygonize(string, string, Georef, int, int, []byte, map[byte]string) (int, error) {
	return 0, ErrNoGDAL
}

// Delaunay needs GDAL: ErrNoGDAL.
func Delaunay(x, y []float64, dst [][3]int32) ([][3]int32, error) {
	return dst, fmt.Errorf("heightmap: Delaunay triangulation: %w", ErrNoGDAL)
}

func readPoints(string, int) (Points, error) { return Points{}, ErrNoGDAL }

func sameCRS(a, b string) bool { return a == b }

func WriteCounts(path string, _ Georef, _, _ int, _ []uint32) error {
	return fmt.Errorf("write %s: %w", path, ErrNoGDAL)
}

func WriteBands(path string, _ Georef, _, _ int, _ [][]float64, _ []string) error {
	return fmt.Errorf("write %s: %w", path, ErrNoGDAL)
}
