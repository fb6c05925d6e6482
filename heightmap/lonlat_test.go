package heightmap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
)

// TestLonLatGridMatchesGDAL: the lon/lat lattice a loaded grid carries
// (NewLonLatGrid) answers as GDAL's own transform does, within
// LonLatTolerance on the ground, at 2,000 random positions of the committed
// UTM crop and of grids in other CRSs — feet of a state plane, one across
// the antimeridian, a geographic one — and its inverse finds the position
// again; a grid around a pole has none.
func TestLonLatGridMatchesGDAL(t *testing.T) {
	crs := func(code int) string {
		t.Helper()
		wkt, err := gdal.CRSFromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		return wkt
	}
	mw, err := heightmap.Load("../data/mount-washington.tif", heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type grid struct {
		name  string
		ref   heightmap.Georef
		w, h  int
		unitM float64 // metres per CRS unit, about
	}
	grids := []grid{
		{"mount-washington.tif", mw.Georef, mw.Width, mw.Height, 111e3},
		// 4097² cells of 18 m in UTM 19N: the benchmark's game-size map.
		{"UTM 19N 74 km", heightmap.Georef{GeoTransform: [6]float64{280000, 18, 0, 4950000, 0, -18}, HasGeoTransform: true, CRS: crs(32619)}, 4097, 4097, 1},
		// Michigan South in international feet, rotated a little.
		{"state plane ft", heightmap.Georef{GeoTransform: [6]float64{13290000, 2, 0.1, 285000, 0.1, -2}, HasGeoTransform: true, CRS: crs(2253)}, 3000, 2000, 0.3048},
		// UTM 60N east of its zone, across 180°.
		{"antimeridian", heightmap.Georef{GeoTransform: [6]float64{780000, 30, 0, 1000000, 0, -30}, HasGeoTransform: true, CRS: crs(32660)}, 4000, 1000, 1},
		{"geographic", heightmap.Georef{GeoTransform: [6]float64{-72, 1.0 / 3600, 0, 45, 0, -1.0 / 3600}, HasGeoTransform: true, CRS: crs(4326)}, 3601, 3601, 111e3},
	}
	if mw.LonLat == nil {
		t.Fatal("the loaded crop carries no lon/lat grid")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, g := range grids {
		t.Run(g.name, func(t *testing.T) {
			ll, err := heightmap.NewLonLatGrid(g.ref, g.w, g.h)
			if err != nil {
				t.Fatal(err)
			}
			if err := ll.Check(g.w, g.h); err != nil {
				t.Fatal(err)
			}
			exact := g.ref // no lattice: GDAL
			exact.LonLat = nil
			with := g.ref
			with.LonLat = ll
			worst, worstBack := 0.0, 0.0
			for range 2000 {
				u, v := rng.Float64()*float64(g.w), rng.Float64()*float64(g.h)
				gt := g.ref.GeoTransform
				x, y := gt[0]+u*gt[1]+v*gt[2], gt[3]+u*gt[4]+v*gt[5]
				lon0, lat0, err := exact.MapToLonLat(x, y)
				if err != nil {
					t.Fatal(err)
				}
				lon, lat, err := with.MapToLonLat(x, y)
				if err != nil {
					t.Fatal(err)
				}
				if lon < -180 || lon > 180 {
					t.Fatalf("longitude %g outside −180…180", lon)
				}
				dlon := math.Remainder(lon-lon0, 360)
				d := math.Hypot(dlon*111319.49*math.Cos(lat0*math.Pi/180), (lat-lat0)*111319.49)
				worst = max(worst, d)
				bx, by, err := with.LonLatToMap(lon0, lat0)
				if err != nil {
					t.Fatal(err)
				}
				// Back in cells: how far the inverse lands from (u, v).
				det := gt[1]*gt[5] - gt[2]*gt[4]
				du := (gt[5]*(bx-x) - gt[2]*(by-y)) / det
				dv := (-gt[4]*(bx-x) + gt[1]*(by-y)) / det
				worstBack = max(worstBack, math.Hypot(du, dv))
			}
			t.Logf("%d×%d nodes; worst %.2g m from GDAL, inverse %.2g cells off (checked at build: %.2g m)", ll.Cols, ll.Rows, worst, worstBack, ll.MaxErrorM)
			if worst > 2*heightmap.LonLatTolerance {
				t.Errorf("the lattice is %.3g m from GDAL's transform, want at most %g", worst, 2*heightmap.LonLatTolerance)
			}
			// 10⁻⁴ cells, or 0.1 mm on cells under a metre (the lattice's
			// nodes are rounded to 10⁻⁹°, up to 56 µm).
			if cellM := math.Hypot(g.ref.GeoTransform[1], g.ref.GeoTransform[4]) * g.unitM; worstBack > 1e-4 && worstBack*cellM > 1e-4 {
				t.Errorf("lon/lat back to the map lands %.3g cells (%.3g m) off GDAL's", worstBack, worstBack*cellM)
			}
		})
	}
	t.Run("pole", func(t *testing.T) {
		// NSIDC polar stereographic north around the pole.
		ref := heightmap.Georef{GeoTransform: [6]float64{-500000, 1000, 0, 500000, 0, -1000}, HasGeoTransform: true, CRS: crs(3413)}
		if _, err := heightmap.NewLonLatGrid(ref, 1000, 1000); !errors.Is(err, heightmap.ErrLonLatGrid) {
			t.Errorf("a grid around the North Pole: %v, want ErrLonLatGrid", err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		ll, err := heightmap.NewLonLatGrid(mw.Georef, mw.Width, mw.Height)
		if err != nil {
			t.Fatal(err)
		}
		for name, bad := range map[string]func(l *heightmap.LonLatGrid){
			"short":       func(l *heightmap.LonLatGrid) { l.Degrees = l.Degrees[:len(l.Degrees)-2] },
			"steps":       func(l *heightmap.LonLatGrid) { l.StepU *= 2 },
			"latitude":    func(l *heightmap.LonLatGrid) { l.Degrees[1] = 91 },
			"NaN":         func(l *heightmap.LonLatGrid) { l.Degrees[0] = math.NaN() },
			"three nodes": func(l *heightmap.LonLatGrid) { l.Cols = 3 },
		} {
			c := *ll
			c.Degrees = append([]float64(nil), ll.Degrees...)
			bad(&c)
			if err := c.Check(mw.Width, mw.Height); !errors.Is(err, heightmap.ErrLonLatGrid) {
				t.Errorf("%s: Check says %v", name, err)
			}
		}
	})
}
