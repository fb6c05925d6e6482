package gdal

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/golden"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.json from this build")

// TestGoldenLonLat: the lon/lat lattices a store records (their nodes,
// MaxErrorM) and lon/lat answered from them are the same bits on every
// CPU and build: make portable runs it under GOAMD64=v3, where the
// compiler fuses multiply-adds (max_error_m differed in the 15th digit
// between v1 and v3 builds, and with it every georeferenced store's bytes).
// Geographic, UTM (north, and past its zone's edge across the
// antimeridian), Web Mercator and a national grid (British National Grid).
func TestGoldenLonLat(t *testing.T) {
	got := map[string]string{}
	for _, tc := range []struct {
		name string
		epsg int
		gt   [6]float64
		w, h int
	}{
		{"geographic", 4326, [6]float64{-71.35, 1.0 / 1200, 0, 44.35, 0, -1.0 / 1200}, 256, 256},
		{"utm19n", 32619, [6]float64{300000, 30, 0, 4900000, 0, -30}, 300, 200},
		{"utm60n-antimeridian", 32660, [6]float64{600000, 1000, 0, 7000000, 0, -1000}, 100, 20},
		{"web-mercator", 3857, [6]float64{-7900000, 50, 0, 5500000, 0, -50}, 200, 200},
		{"british-national-grid", 27700, [6]float64{400000, 5, 0, 300000, 0, -5}, 160, 120},
	} {
		wkt, err := CRSFromEPSG(tc.epsg)
		if err != nil {
			t.Fatalf("EPSG:%d: %v", tc.epsg, err)
		}
		ref := heightmap.Georef{GeoTransform: tc.gt, HasGeoTransform: true, CRS: wkt}
		ll, err := heightmap.NewLonLatGrid(ref, tc.w, tc.h)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ref.LonLat = ll
		h := sha256.New()
		put := func(v float64) { h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))) }
		put(ll.MaxErrorM)
		for _, d := range ll.Degrees {
			put(d)
		}
		for _, c := range [][2]float64{{0.3, 0.7}, {float64(tc.w) / 3, float64(tc.h) / 2}, {float64(tc.w) - 1.2, float64(tc.h) - 0.4}} {
			x := tc.gt[0] + c[0]*tc.gt[1]
			y := tc.gt[3] + c[1]*tc.gt[5]
			lon, lat, err := ref.MapToLonLat(x, y)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			put(lon)
			put(lat)
			if x2, y2, err := ref.LonLatToMap(lon, lat); err == nil {
				put(x2)
				put(y2)
			}
		}
		got[tc.name] = hex.EncodeToString(h.Sum(nil)[:12])
	}
	golden.Check(t, filepath.Join("testdata", "golden.json"), got, *updateGolden)
}
