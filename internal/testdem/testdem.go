// Package testdem gives tests windows of the two real DEMs of the shared
// data folder — the NASADEM tile N44W072.hgt (open hills) and the LiDAR
// surface annarbor-dsm-2ft.tif (a town) — from crops committed in its
// testdata, so that tests run in a fresh clone without the folder. Windows
// are named in the source raster's cells, as the full files' are, and load
// the same cells with the same georeferencing (TestCropsMatchShared). It
// is a test helper: it reads files and reports through testing.TB.
package testdem

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	_ "github.com/frontiersets/frontiersets/heightmap/gdal" // the crops are GeoTIFFs
)

// crop is a committed window of a real DEM: columns Col… and rows Row… of
// Name, Width × Height cells, in File (testdata).
type crop struct {
	Name, File              string
	Col, Row, Width, Height int
}

// crops are cut from the shared folder with
//
//	gdal_translate -srcwin 100 100 924 924 -co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=9 N44W072.hgt N44W072-100-100.tif
//	gdal_translate -srcwin 100 100 384 384 -co COMPRESS=DEFLATE -co PREDICTOR=3 -co ZLEVEL=9 annarbor-dsm-2ft.tif annarbor-dsm-2ft-100-100.tif
//
// (testdata/README.md: sources and licences).
var crops = []crop{
	{"N44W072.hgt", "N44W072-100-100.tif", 100, 100, 924, 924},
	{"annarbor-dsm-2ft.tif", "annarbor-dsm-2ft-100-100.tif", 100, 100, 384, 384},
}

// Dir returns the folder of the committed crops.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Path returns the committed crop holding window win of the real DEM name
// (cells of the full raster) and win in the crop's cells. It fails the test
// when no crop holds the window.
func Path(t testing.TB, name string, win heightmap.Window) (string, heightmap.Window) {
	t.Helper()
	for _, c := range crops {
		if c.Name != name {
			continue
		}
		w := heightmap.Window{Col: win.Col - c.Col, Row: win.Row - c.Row, Width: win.Width, Height: win.Height}
		if w.Col < 0 || w.Row < 0 || w.Width < 1 || w.Height < 1 || w.Col+w.Width > c.Width || w.Row+w.Height > c.Height {
			t.Fatalf("testdem: window %v of %s is not inside the committed crop (columns %d to %d, rows %d to %d): pick one inside it",
				win, name, c.Col, c.Col+c.Width-1, c.Row, c.Row+c.Height-1)
		}
		return filepath.Join(Dir(), c.File), w
	}
	t.Fatalf("testdem: no committed crop of %s", name)
	return "", heightmap.Window{}
}

// Load loads window win (cells of the full raster) of the real DEM name
// with opt (its Window ignored) from the committed crop.
func Load(t testing.TB, name string, win heightmap.Window, opt heightmap.Options) *heightmap.Grid {
	t.Helper()
	path, w := Path(t, name, win)
	opt.Window = w
	g, err := heightmap.Load(path, opt)
	if errors.Is(err, heightmap.ErrNoGDAL) {
		t.Skipf("testdem: %v (a build without cgo: GDAL reads the crops)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Any loads window win of the real DEM name from its committed crop when
// the crop holds it, else from the shared data folder (Shared): for
// benchmarks and the tests whose windows are larger than the crops.
func Any(tb testing.TB, name string, win heightmap.Window) *heightmap.Grid {
	tb.Helper()
	for _, c := range crops {
		if c.Name == name && win.Col >= c.Col && win.Row >= c.Row && win.Width >= 1 && win.Height >= 1 &&
			win.Col+win.Width <= c.Col+c.Width && win.Row+win.Height <= c.Row+c.Height {
			return Load(tb, name, win, heightmap.Options{})
		}
	}
	return Shared(tb, name, win)
}

// Shared loads window win of the real DEM name from the shared data folder
// (../shared/data beside the repository), for benchmarks whose windows
// are larger than the crops; it skips when the folder is absent.
func Shared(tb testing.TB, name string, win heightmap.Window) *heightmap.Grid {
	tb.Helper()
	p := filepath.Join(Dir(), "..", "..", "..", "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("testdem: %s absent (the shared data folder): %v", p, err)
	}
	g, err := heightmap.Load(p, heightmap.Options{Window: win})
	if errors.Is(err, heightmap.ErrNoGDAL) {
		tb.Skipf("testdem: %v (a build without cgo)", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// HGT writes the NASADEM tile N44W072.hgt — 1201 × 1201 big-endian Int16
// cells, 3″, georeferenced by its name, as the shared folder holds it — in
// a temporary folder of the test and returns its path. Cells 100–1023 of
// each axis are the committed crop's; the others repeat the crop's nearest
// edge cell, so the heights lie within the crop's (169–1908 m) where the
// full tile's run 115–1908. Tests of reading the format, its size,
// spacing and georeferencing use it instead of the shared file.
func HGT(t testing.TB) string {
	t.Helper()
	const n = 1201
	c := crops[0]
	g := Load(t, c.Name, heightmap.Window{Col: c.Col, Row: c.Row, Width: c.Width, Height: c.Height}, heightmap.Options{})
	buf := make([]byte, 2*n*n)
	for r := range n {
		cr := min(max(r-c.Row, 0), c.Height-1)
		for col := range n {
			i := cr*c.Width + min(max(col-c.Col, 0), c.Width-1)
			v := int16(math.MinInt16)
			if !g.IsNodata(i) {
				v = int16(g.Elev[i])
			}
			binary.BigEndian.PutUint16(buf[2*(r*n+col):], uint16(v))
		}
	}
	p := filepath.Join(t.TempDir(), c.Name)
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
