package heightmap_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
)

// TestCoordinatesRealDEMs: cells, map coordinates and lon/lat agree with
// gdalinfo's corner and centre coordinates of the two real DEMs, and go
// round trip.
func TestCoordinatesRealDEMs(t *testing.T) {
	for _, tc := range []struct {
		name       string
		col, row   int     // a cell whose top-left corner gdalinfo reports
		x, y       float64 // that corner in map units
		lon, lat   float64 // and in degrees
		tolMap     float64 // map units
		tolDegrees float64
	}{
		// gdalinfo's Center of the full DSM: (13293604.316, 282507.867)
		// (83d44'15.44"W, 42d16'24.45"N), the corner of its cell (393,
		// 434), the crop's (293, 334); the CRS is in feet.
		{"annarbor-dsm-2ft.tif", 293, 334, 13293604.316, 282507.867, -(83 + 44/60.0 + 15.44/3600), 42 + 16/60.0 + 24.45/3600, 0.01, 1e-5},
		// gdalinfo's Upper Left: (-72.0004167, 45.0004167), EPSG:4326.
		{"N44W072.hgt", 0, 0, -72.0004167, 45.0004167, -72.0004167, 45.0004167, 1e-6, 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := heightmap.Load(realDEM(t, tc.name), heightmap.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := g.Georef
			x, y, err := ref.CellToMap(tc.col, tc.row)
			if err != nil {
				t.Fatal(err)
			}
			// The centre is half a cell right of and below the corner.
			if cx, cy := tc.x+g.GeoTransform[1]/2, tc.y+g.GeoTransform[5]/2; math.Abs(x-cx) > tc.tolMap || math.Abs(y-cy) > tc.tolMap {
				t.Errorf("CellToMap(%d,%d) = %.4f,%.4f, want %.4f,%.4f", tc.col, tc.row, x, y, cx, cy)
			}
			if c, r, err := ref.MapToCell(x, y, g.Width, g.Height); err != nil || c != tc.col || r != tc.row {
				t.Errorf("MapToCell back: %d,%d %v", c, r, err)
			}
			lon, lat, err := ref.MapToLonLat(tc.x, tc.y)
			if err != nil || math.Abs(lon-tc.lon) > tc.tolDegrees || math.Abs(lat-tc.lat) > tc.tolDegrees {
				t.Errorf("MapToLonLat = %.7f,%.7f %v, want %.7f,%.7f", lon, lat, err, tc.lon, tc.lat)
			}
			bx, by, err := ref.LonLatToMap(lon, lat)
			if err != nil || math.Abs(bx-tc.x) > tc.tolMap || math.Abs(by-tc.y) > tc.tolMap {
				t.Errorf("LonLatToMap back = %.4f,%.4f %v", bx, by, err)
			}
			x0, _, x1, _ := ref.Extent(g.Width, g.Height)
			if _, _, err := ref.MapToCell(x1+1, y, g.Width, g.Height); err == nil || !strings.Contains(err.Error(), "outside the grid") {
				t.Errorf("a point east of the grid: %v", err)
			}
			if _, _, err := ref.MapToCell(x0-1e-9, y, g.Width, g.Height); err == nil {
				t.Error("a point just west of the grid was accepted")
			}
		})
	}
}

func TestCoordinateErrors(t *testing.T) {
	var none heightmap.Georef
	if _, _, err := none.CellToMap(1, 1); !errors.Is(err, heightmap.ErrNoGeoref) {
		t.Errorf("no geotransform: %v", err)
	}
	if _, _, err := none.LonLatToMap(10, 10); !errors.Is(err, heightmap.ErrNoCRS) {
		t.Errorf("no CRS: %v", err)
	}
	utm, err := gdal.CRSFromEPSG(32619)
	if err != nil {
		t.Skip(err)
	}
	ref := heightmap.Georef{GeoTransform: [6]float64{300000, 10, 0, 4930000, 0, -10}, HasGeoTransform: true, CRS: utm}
	for _, ll := range [][2]float64{{-200, 44}, {-71, 95}, {math.NaN(), 1}} {
		if _, _, err := ref.LonLatToMap(ll[0], ll[1]); err == nil || !strings.Contains(err.Error(), "want longitude") {
			t.Errorf("lon/lat %v: %v", ll, err)
		}
	}
	if _, _, err := (heightmap.Georef{HasGeoTransform: true, CRS: "nonsense"}).MapToLonLat(1, 1); err == nil {
		t.Error("a CRS GDAL cannot parse was accepted")
	}
}

// TestWriteRegions: polygonised regions of a known mask, in GeoJSON with
// the grid's CRS, one polygon per 4-connected region of each value, holes
// kept as interior rings, corners on the geotransform's cell corners.
func TestWriteRegions(t *testing.T) {
	utm, err := gdal.CRSFromEPSG(32619)
	if err != nil {
		t.Skip(err)
	}
	const w, h = 12, 8
	ref := heightmap.Georef{GeoTransform: [6]float64{300000, 10, 0, 4930000, 0, -10}, HasGeoTransform: true, CRS: utm}
	mask := make([]byte, w*h)
	fill := func(c0, r0, c1, r1 int, v byte) {
		for r := r0; r < r1; r++ {
			for c := c0; c < c1; c++ {
				mask[r*w+c] = v
			}
		}
	}
	fill(0, 0, 3, 3, 1)  // A: two regions
	fill(0, 5, 2, 8, 1)  //
	fill(6, 1, 11, 6, 2) // B: one region with a hole
	fill(8, 3, 9, 4, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.geojson")
	// What a writer killed while GDAL wrote its file left: gone after the
	// next write of the same path.
	killed := filepath.Join(dir, ".f.geojson.tmp123")
	for _, n := range []string{killed, killed + ".geojson"} {
		os.WriteFile(n, []byte("{"), 0o600)
		old := time.Now().Add(-time.Minute)
		os.Chtimes(n, old, old)
	}
	n, err := gdal.WriteRegions(path, ref, w, h, mask, map[byte]string{1: "A", 2: "B"})
	if err != nil || n != 3 {
		t.Fatalf("WriteRegions: %d polygons, %v", n, err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		CRS      struct{ Properties struct{ Name string } }
		Features []struct {
			Properties struct {
				Value int
				Side  string
			}
			Geometry struct {
				Type        string
				Coordinates [][][2]float64
			}
		}
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fc.CRS.Properties.Name, "32619") || len(fc.Features) != 3 {
		t.Fatalf("CRS %q, %d features", fc.CRS.Properties.Name, len(fc.Features))
	}
	sides := map[string]int{}
	for _, f := range fc.Features {
		sides[f.Properties.Side]++
		if f.Geometry.Type != "Polygon" {
			t.Errorf("geometry %s", f.Geometry.Type)
		}
		if f.Properties.Side == "B" {
			// Outer ring from (6,1) to (11,6) in cells, one hole.
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, p := range f.Geometry.Coordinates[0] {
				x0, x1, y0, y1 = min(x0, p[0]), max(x1, p[0]), min(y0, p[1]), max(y1, p[1])
			}
			if x0 != 300060 || x1 != 300110 || y1 != 4929990 || y0 != 4929940 || len(f.Geometry.Coordinates) != 2 {
				t.Errorf("B's polygon: x %g–%g, y %g–%g, %d rings", x0, x1, y0, y1, len(f.Geometry.Coordinates))
			}
		}
	}
	if sides["A"] != 2 || sides["B"] != 1 {
		t.Errorf("sides %v", sides)
	}
	if _, err := gdal.WriteRegions(filepath.Join(t.TempDir(), "f.shp"), ref, w, h, mask, nil); err == nil || !strings.Contains(err.Error(), ".geojson or .gpkg") {
		t.Errorf("unknown extension: %v", err)
	}
	gp := filepath.Join(t.TempDir(), "f.gpkg")
	if n, err := gdal.WriteRegions(gp, ref, w, h, mask, nil); err != nil || n != 3 {
		t.Errorf("GeoPackage: %d %v", n, err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(gp), ".*tmp*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestLatitudeOffTheGlobe: a geographic raster reaching past 90° is refused
// though its centre latitude is on the globe.
func TestLatitudeOffTheGlobe(t *testing.T) {
	wgs, err := gdal.CRSFromEPSG(4326)
	if err != nil {
		t.Skip(err)
	}
	g := &heightmap.Grid{Width: 10, Height: 200, Elev: make([]float32, 2000)}
	g.Georef = heightmap.Georef{GeoTransform: [6]float64{10, 0.1, 0, 95, 0, -0.1}, HasGeoTransform: true, CRS: wgs}
	p := filepath.Join(t.TempDir(), "pole.tif")
	if err := gdal.WriteElevation(p, g); err != nil {
		t.Fatal(err)
	}
	if _, err := heightmap.Load(p, heightmap.Options{}); err == nil || !strings.Contains(err.Error(), "reaching latitude 95.000°, off the globe") {
		t.Errorf("got %v", err)
	}
	if _, err := heightmap.Load(p, heightmap.Options{Window: heightmap.Window{Col: 0, Row: 60, Width: 10, Height: 100}}); err != nil {
		t.Errorf("a window within ±90°: %v", err)
	}
}
