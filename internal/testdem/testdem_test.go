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
