//go:build !cgo

package gdal

// Without cgo there is no libgdal: no driver is registered (heightmap.Load
// reads GeoTIFF, HGT, RAW and PNG heightmaps with its own readers), and
// everything here but CRSFromEPSG returns heightmap.ErrNoGDAL. This keeps the cgo-free packages' tests buildable
// for other architectures (GOARCH=arm64 under qemu-user-static, make
// test-portable).

import (
	"fmt"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/crs"
)

// CRSFromEPSG returns the WKT of the CRSs package crs knows without
// GDAL (the same text GDAL gives), and heightmap.ErrNoGDAL for others.
func CRSFromEPSG(code int) (string, error) {
	c, err := crs.FromEPSG(code)
	if err != nil {
		return "", fmt.Errorf("gdal: EPSG:%d: %w (%v)", code, heightmap.ErrNoGDAL, err)
	}
	return c.WKT(), nil
}

// WriteMask needs GDAL: heightmap.ErrNoGDAL.
func WriteMask(path string, _ heightmap.Georef, _, _ int, _ []byte, _ *MaskStyle) error {
	return fmt.Errorf("write %s: %w", path, heightmap.ErrNoGDAL)
}

// WriteElevation needs GDAL: heightmap.ErrNoGDAL.
func WriteElevation(path string, _ *heightmap.Grid) error {
	return fmt.Errorf("write %s: %w", path, heightmap.ErrNoGDAL)
}

// WriteCounts needs GDAL: heightmap.ErrNoGDAL.
func WriteCounts(path string, _ heightmap.Georef, _, _ int, _ []uint32) error {
	return fmt.Errorf("write %s: %w", path, heightmap.ErrNoGDAL)
}

// WriteBands needs GDAL: heightmap.ErrNoGDAL.
func WriteBands(path string, _ heightmap.Georef, _, _ int, _ [][]float64, _ []string) error {
	return fmt.Errorf("write %s: %w", path, heightmap.ErrNoGDAL)
}

// Viewshed needs GDAL; NewViewshed returns heightmap.ErrNoGDAL.
type Viewshed struct{}

// NewViewshed needs GDAL: heightmap.ErrNoGDAL.
func NewViewshed(*heightmap.Grid) (*Viewshed, error) {
	return nil, fmt.Errorf("gdal: viewshed: %w", heightmap.ErrNoGDAL)
}

// Viewshed is never reached: NewViewshed fails without GDAL.
func (v *Viewshed) Viewshed(int, int, float64, float64, []byte) error { return heightmap.ErrNoGDAL }

// Close does nothing.
func (v *Viewshed) Close() {}

func polygonize(string, string, heightmap.Georef, int, int, []byte, map[byte]string) (int, error) {
	return 0, heightmap.ErrNoGDAL
}

// Delaunay needs GDAL: heightmap.ErrNoGDAL.
func Delaunay(x, y []float64, dst [][3]int32) ([][3]int32, error) {
	return dst, fmt.Errorf("gdal: Delaunay triangulation: %w", heightmap.ErrNoGDAL)
}

func readPoints(string, int) (Points, error) { return Points{}, heightmap.ErrNoGDAL }

func sameCRS(a, b string) bool { return a == b }
