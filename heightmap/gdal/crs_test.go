//go:build cgo

package gdal

import (
	"math"
	"testing"

	"github.com/frontiersets/frontiersets/internal/crs"
)

// crsCodes are the EPSG codes package crs converts without GDAL.
func crsCodes() []int {
	codes := []int{4326, 4269, 4258, 4171, 4283, 7844, 3857, 2154}
	for z := 1; z <= 60; z++ {
		codes = append(codes, 32600+z, 32700+z)
	}
	for z := 1; z <= 23; z++ {
		codes = append(codes, 26900+z)
	}
	for z := 28; z <= 37; z++ {
		codes = append(codes, 25800+z)
	}
	for z := 46; z <= 59; z++ {
		codes = append(codes, 7800+z)
		if z >= 48 && z <= 58 {
			codes = append(codes, 28300+z)
		}
	}
	return codes
}

// TestPureGoCRS: for every CRS package crs knows, its WKT is GDAL's,
// character for character (so a store baked without GDAL records the
// same text), Parse reads GDAL's back, and its conversions agree with
// PROJ's within 1 mm (the lon/lat lattice's tolerance) over the CRS's
// area: a 9×9 lattice of points across each UTM zone from 80°S or the
// equator to 84°N, and across the other projections' areas.
func TestPureGoCRS(t *testing.T) {
	worst := 0.0
	for _, code := range crsCodes() {
		c, err := crs.FromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		want, err := CRSFromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.WKT(); got != want {
			t.Fatalf("EPSG:%d WKT\n got %s\nwant %s", code, got, want)
		}
		p, err := crs.Parse(want)
		if err != nil {
			t.Fatalf("EPSG:%d: Parse: %v", code, err)
		}
		if p.WKT() != want {
			t.Fatalf("EPSG:%d: Parse then WKT gives %s", code, p.WKT())
		}
		box := areaOf(c)
		if c.Datum.EPSG == 6269 { // NAD83: where PROJ's transformation is null
			box = [4]float64{max(box[0], -163.99), max(box[1], 23.81), min(box[2], -47.01), min(box[3], 85.99)}
			if box[0] >= box[2] {
				continue
			}
		}
		worst = max(worst, compareToGDAL(t, p, want, box))
	}
	t.Logf("largest difference from PROJ over %d CRSs: %.3g m", len(crsCodes()), worst)
}

// areaOf returns a lon/lat box in which c is used.
func areaOf(c *crs.CRS) [4]float64 {
	switch {
	case c.Geographic():
		return [4]float64{-179, -89, 179, 89}
	case c.Method == crs.WebMercator:
		return [4]float64{-179, -85, 179, 85}
	case c.EPSG == 2154:
		return [4]float64{-9, 41, 10, 51.5}
	case c.FalseNorthing == 10000000:
		return [4]float64{c.CentralMeridian - 3, -80, c.CentralMeridian + 3, 0}
	}
	return [4]float64{c.CentralMeridian - 3, 0, c.CentralMeridian + 3, 84}
}

// compareToGDAL converts a 9×9 lattice of the box both ways through c and
// through GDAL and fails beyond 1 mm; it returns the largest difference
// in metres.
func compareToGDAL(t *testing.T, c *crs.CRS, wkt string, box [4]float64) float64 {
	t.Helper()
	var lon, lat []float64
	for i := range 9 {
		for j := range 9 {
			lon = append(lon, box[0]+(box[2]-box[0])*float64(i)/8)
			lat = append(lat, box[1]+(box[3]-box[1])*float64(j)/8)
		}
	}
	gx, gy := append([]float64(nil), lon...), append([]float64(nil), lat...)
	if err := transform(wkt, false, gx, gy); err != nil {
		t.Fatal(err)
	}
	ox, oy := append([]float64(nil), lon...), append([]float64(nil), lat...)
	if err := c.FromLonLat(ox, oy); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range gx {
		u := c.Unit.Metres // metres per CRS unit; about 111 km per degree
		if c.Geographic() {
			u = 111320
		}
		d := math.Hypot(ox[i]-gx[i], oy[i]-gy[i]) * u
		worst = max(worst, d)
		if !(d <= 1e-3) {
			t.Fatalf("%s: lon/lat %g,%g: ours %.6f,%.6f, GDAL's %.6f,%.6f (%.3g m)", c.Name, lon[i], lat[i], ox[i], oy[i], gx[i], gy[i], d)
		}
	}
	// Back: our inverse of GDAL's map points gives the lattice again.
	if err := c.ToLonLat(gx, gy); err != nil {
		t.Fatal(err)
	}
	for i := range gx {
		d := math.Hypot(math.Remainder(gx[i]-lon[i], 360)*math.Cos(lat[i]*math.Pi/180), gy[i]-lat[i]) * 111320
		worst = max(worst, d)
		if !(d <= 1e-3) {
			t.Fatalf("%s: inverse at lon/lat %g,%g: %.9f,%.9f (%.3g m)", c.Name, lon[i], lat[i], gx[i], gy[i], d)
		}
	}
	return worst
}
