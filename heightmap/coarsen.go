package heightmap

import (
	"errors"
	"fmt"
	"math"
)

// ErrPVSCell reports a PVS cell that is not a whole number of the
// heightmap's cells or leaves fewer than 2×2 of them.
var ErrPVSCell = errors.New("heightmap: invalid PVS cell")

// PVSCellFactor returns k, the heightmap cells per side of a PVS cell of
// pvsCellM metres on a grid of cells dx × dy metres: pvsCellM must be a
// whole multiple of both (within 10⁻⁶), the same multiple. Errors wrap
// ErrPVSCell and name the valid values.
func PVSCellFactor(pvsCellM, dx, dy float64) (int, error) {
	if !(pvsCellM > 0) || math.IsInf(pvsCellM, 0) {
		return 0, fmt.Errorf("%w: %g m, want a positive multiple of the heightmap's %g m cells", ErrPVSCell, pvsCellM, dx)
	}
	kx, ky := math.Round(pvsCellM/dx), math.Round(pvsCellM/dy)
	switch {
	case math.Abs(dx-dy) > 1e-6*max(dx, dy):
		return 0, fmt.Errorf("%w: %g m on cells of %g × %g m: PVS cells need square heightmap cells; warp the DEM to a square grid first", ErrPVSCell, pvsCellM, dx, dy)
	case kx < 1 || math.Abs(kx*dx-pvsCellM) > 1e-6*pvsCellM || kx != ky:
		return 0, fmt.Errorf("%w: %g m is not a whole multiple of the heightmap's %g m cells: want %g, %g, %g m, …", ErrPVSCell, pvsCellM, dx, dx, 2*dx, 4*dx)
	case kx > 1024:
		return 0, fmt.Errorf("%w: %g m is %g heightmap cells; want at most 1024", ErrPVSCell, pvsCellM, kx)
	}
	return int(kx), nil
}

// Coarsen returns the grid of g's PVS cells of k×k cells: ⌈W/k⌉ × ⌈H/k⌉
// cells (those at the right and bottom edges cover fewer), k·Dx × k·Dy
// metres, each the mean of its cells that have data (of all its cells when
// none has, and then nodata), the geotransform scaled by k from the same
// corner; Window, Source and Loaded stay the heightmap's. Heightmap is g
// and PVSCell k. k = 1 returns g. Errors wrap ErrPVSCell: fewer than 2×2
// PVS cells.
func Coarsen(g *Grid, k int) (*Grid, error) {
	if k <= 1 {
		return g, nil
	}
	w, h := (g.Width+k-1)/k, (g.Height+k-1)/k
	if w < 2 || h < 2 {
		return nil, fmt.Errorf("%w: PVS cells of %d heightmap cells leave %d×%d of them on the %d×%d heightmap; want at least 2×2", ErrPVSCell, k, w, h, g.Width, g.Height)
	}
	c := *g
	c.Width, c.Height, c.Dx, c.Dy = w, h, g.Dx*float64(k), g.Dy*float64(k)
	c.Heightmap, c.PVSCell = g, k
	for _, i := range []int{1, 2, 4, 5} {
		c.GeoTransform[i] *= float64(k)
	}
	if g.Engine != nil {
		c.Engine = g.Engine.Coarsen(k)
	}
	c.Samples = Samples{K: k, Width: g.Width, Height: g.Height}
	c.LonLat = nil
	if g.LonLat != nil {
		c.LonLat, c.NoLonLat = lonLatFor(c.Georef, w, h, registered().transformer())
	}
	c.Elev = make([]float32, w*h)
	c.Nodata, c.NodataCount, c.Implausible = nil, 0, 0
	sum, all := make([]float64, w*h), make([]float64, w*h)
	n, nAll := make([]int32, w*h), make([]int32, w*h)
	for r := range g.Height {
		for col := range g.Width {
			i, j := (r/k)*w+col/k, r*g.Width+col
			z := float64(g.Elev[j])
			all[i] += z
			nAll[i]++
			if !g.IsNodata(j) {
				sum[i] += z
				n[i]++
			}
		}
	}
	for i := range c.Elev {
		if n[i] == 0 {
			if c.Nodata == nil {
				c.Nodata = make([]bool, w*h)
			}
			c.Nodata[i] = true
			c.NodataCount++
			c.Elev[i] = float32(all[i] / float64(nAll[i]))
			continue
		}
		c.Elev[i] = float32(sum[i] / float64(n[i]))
	}
	return &c, nil
}
