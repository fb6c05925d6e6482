package testdem

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
)

// TestCropsMatchShared: each committed crop loads the cells, spacing,
// units and georeferencing of the same window of its real DEM in the
// shared data folder (checked where the folder is present: it is where
// the crops come from).
func TestCropsMatchShared(t *testing.T) {
	shared := filepath.Join(Dir(), "..", "..", "..", "..", "shared", "data") // as Shared
	for _, c := range crops {
		win := heightmap.Window{Col: c.Col + 17, Row: c.Row + 23, Width: c.Width - 40, Height: c.Height - 30}
		got := Load(t, c.Name, win, heightmap.Options{})
		if got.Width != win.Width || got.Height != win.Height || got.LonLat == nil {
			t.Fatalf("%s: %d×%d cells, lon/lat %v", c.Name, got.Width, got.Height, got.LonLat != nil)
		}
		src := filepath.Join(shared, c.Name)
		if _, err := os.Stat(src); err != nil {
			t.Logf("%s absent: the crop is not compared with it", src)
			continue
		}
		want, err := heightmap.Load(src, heightmap.Options{Window: win})
		if err != nil {
			t.Fatal(err)
		}
		// gdal_translate rounds the crop's origin: within a 10⁻⁹ cell.
		gt := true
		for i, v := range got.GeoTransform {
			gt = gt && math.Abs(v-want.GeoTransform[i]) <= 1e-9*math.Abs(want.GeoTransform[1])
		}
		if got.Dx != want.Dx || got.Dy != want.Dy || !gt || got.CRS != want.CRS ||
			got.ZScale != want.ZScale || got.NodataCount != want.NodataCount || fmt.Sprint(got.Elev) != fmt.Sprint(want.Elev) {
			t.Errorf("%s: the crop's window differs from the shared file's (spacing %g×%g against %g×%g, %d nodata against %d)",
				c.Name, got.Dx, got.Dy, want.Dx, want.Dy, got.NodataCount, want.NodataCount)
		}
	}
}

// TestHGT: the rebuilt tile is read by GDAL's SRTM driver as the shared
// file is (1201 × 1201 cells, EPSG:4326, the tile's corner at 72°W 45°N
// less half a cell), holds the crop's cells where the crop lies and its
// nearest edge cell elsewhere, and equals the shared file's window of the
// crop wherever that folder is present.
func TestHGT(t *testing.T) {
	p := HGT(t)
	g, err := heightmap.Load(p, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Width != 1201 || g.Height != 1201 || g.CRSName != "EPSG:4326" || g.Driver != "SRTMHGT" ||
		math.Abs(g.GeoTransform[0]+72+0.5/1200) > 1e-9 || math.Abs(g.GeoTransform[3]-45-0.5/1200) > 1e-9 {
		t.Fatalf("%d×%d %s driver %s origin %v", g.Width, g.Height, g.CRSName, g.Driver, g.GeoTransform)
	}
	c := crops[0]
	crop := Load(t, c.Name, heightmap.Window{Col: c.Col, Row: c.Row, Width: c.Width, Height: c.Height}, heightmap.Options{})
	for _, cell := range [][4]int{{100, 100, 0, 0}, {500, 731, 400, 631}, {1023, 1023, 923, 923}, {0, 0, 0, 0}, {1200, 50, 923, 0}, {40, 1100, 0, 923}} {
		if a, b := g.Elev[g.Index(cell[0], cell[1])], crop.Elev[crop.Index(cell[2], cell[3])]; a != b {
			t.Errorf("tile cell (%d,%d) %v, want the crop's (%d,%d) %v", cell[0], cell[1], a, cell[2], cell[3], b)
		}
	}
	src := filepath.Join(Dir(), "..", "..", "..", "..", "shared", "data", c.Name)
	if _, err := os.Stat(src); err != nil {
		t.Logf("%s absent: the tile is not compared with it", src)
		return
	}
	win := heightmap.Window{Col: c.Col, Row: c.Row, Width: c.Width, Height: c.Height}
	a, err := heightmap.Load(p, heightmap.Options{Window: win})
	if err != nil {
		t.Fatal(err)
	}
	b, err := heightmap.Load(src, heightmap.Options{Window: win})
	if err != nil {
		t.Fatal(err)
	}
	if a.GeoTransform != b.GeoTransform || a.Dx != b.Dx || a.Dy != b.Dy || fmt.Sprint(a.Elev) != fmt.Sprint(b.Elev) {
		t.Errorf("the rebuilt tile's crop window differs from the shared file's")
	}
}
