package heightmap_test

import (
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// realDEM returns the path of a real DEM the tests read from the
// repository: for "N44W072.hgt" the NASADEM tile rebuilt around its
// committed crop (testdem.HGT: the whole 1201 × 1201 file, its cells
// outside columns and rows 100–1023 repeating the crop's edge); for
// "annarbor-dsm-2ft.tif" the committed crop of the town's DSM, a GeoTIFF
// of its columns and rows 100–483 with the source's CRS in US feet.
func realDEM(t testing.TB, name string) string {
	t.Helper()
	if name == "N44W072.hgt" {
		return testdem.HGT(t)
	}
	p, _ := testdem.Path(t, name, heightmap.Window{Col: 100, Row: 100, Width: 384, Height: 384})
	return p
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestLoadRealDEMs(t *testing.T) {
	tests := []struct {
		file    string
		w, h    int
		dx, dy  float64
		lo, hi  float64
		crs     string
		spacing heightmap.Spacing
	}{
		// The rebuilt tile's heights are its crop's (the full tile's run
		// 115–1908 m), the DSM crop's are 258.24–300 m (the full DSM's
		// 786 × 868 cells run 254–300.34 m).
		{"N44W072.hgt", 1201, 1201, 66.0, 92.6, 169, 1908, "EPSG:4326", heightmap.SpacingGeographic},
		{"annarbor-dsm-2ft.tif", 384, 384, 0.6096, 0.6096, 258.24, 300, "EPSG:2253", heightmap.SpacingProjected},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			g, err := heightmap.Load(realDEM(t, tc.file), heightmap.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Width != tc.w || g.Height != tc.h || len(g.Elev) != tc.w*tc.h {
				t.Errorf("size %d×%d (%d cells), want %d×%d", g.Width, g.Height, len(g.Elev), tc.w, tc.h)
			}
			if !within(g.Dx, tc.dx, 0.01) || !within(g.Dy, tc.dy, 0.01) {
				t.Errorf("spacing %.4f × %.4f m, want %.4f × %.4f within 1%%", g.Dx, g.Dy, tc.dx, tc.dy)
			}
			lo, hi := g.MinMax()
			if math.Abs(lo-tc.lo) > 0.5 || math.Abs(hi-tc.hi) > 0.5 {
				t.Errorf("heights %.2f–%.2f m, want %.2f–%.2f", lo, hi, tc.lo, tc.hi)
			}
			if g.CRSName != tc.crs || g.Spacing != tc.spacing {
				t.Errorf("CRS %q spacing %q, want %q %q", g.CRSName, g.Spacing, tc.crs, tc.spacing)
			}
		})
	}
}

// TestWindowMatchesFullRead checks that a window holds the same cells as a
// full read, and that its geotransform moved to the window's corner.
func TestWindowMatchesFullRead(t *testing.T) {
	for _, file := range []string{"N44W072.hgt", "annarbor-dsm-2ft.tif"} {
		t.Run(file, func(t *testing.T) {
			p := realDEM(t, file)
			full, err := heightmap.Load(p, heightmap.Options{})
			if err != nil {
				t.Fatal(err)
			}
			w := heightmap.Window{Col: 123, Row: 77, Width: 64, Height: 50}
			win, err := heightmap.Load(p, heightmap.Options{Window: w})
			if err != nil {
				t.Fatal(err)
			}
			for r := range w.Height {
				for c := range w.Width {
					if a, b := win.Elev[win.Index(c, r)], full.Elev[full.Index(w.Col+c, w.Row+r)]; a != b {
						t.Fatalf("cell (%d,%d): window %v, full %v", c, r, a, b)
					}
				}
			}
			gt, ft := win.GeoTransform, full.GeoTransform
			if x := ft[0] + 123*ft[1]; math.Abs(gt[0]-x) > 1e-9*math.Abs(x)+1e-12 {
				t.Errorf("window origin x %v, want %v", gt[0], x)
			}
			if y := ft[3] + 77*ft[5]; math.Abs(gt[3]-y) > 1e-9*math.Abs(y)+1e-12 {
				t.Errorf("window origin y %v, want %v", gt[3], y)
			}
		})
	}
}

// TestGeographicSpacingFollowsLatitude: a window further north has narrower
// columns in metres.
func TestGeographicSpacingFollowsLatitude(t *testing.T) {
	p := realDEM(t, "N44W072.hgt")
	north, err := heightmap.Load(p, heightmap.Options{Window: heightmap.Window{0, 0, 10, 10}})
	if err != nil {
		t.Fatal(err)
	}
	south, err := heightmap.Load(p, heightmap.Options{Window: heightmap.Window{0, 1191, 10, 10}})
	if err != nil {
		t.Fatal(err)
	}
	// cos(45°)/cos(44°) ≈ 0.983
	if r := north.Dx / south.Dx; !within(r, math.Cos(45*math.Pi/180)/math.Cos(44*math.Pi/180), 0.002) {
		t.Errorf("north/south column width ratio %.5f", r)
	}
}

func TestMetresPerDegree(t *testing.T) {
	lon, lat := heightmap.MetresPerDegree(0, 6378137, 298.257223563)
	if !within(lon, 111319.49, 1e-6) || !within(lat, 110574.27, 1e-5) {
		t.Errorf("equator: %.2f, %.2f m per degree", lon, lat)
	}
	lon, lat = heightmap.MetresPerDegree(60, 6371000, 0) // sphere
	if !within(lon, 6371000*math.Pi/180/2, 1e-9) || !within(lat, 6371000*math.Pi/180, 1e-9) {
		t.Errorf("sphere at 60°: %.2f, %.2f m per degree", lon, lat)
	}
}

// TestASCIIGridWithNodata loads an ESRI ASCII grid (no CRS) with a nodata
// cell: the cell is counted, marked and filled from its neighbours, and the
// spacing is assumed (or taken from CellSize).
func TestASCIIGridWithNodata(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dem.asc")
	const asc = `ncols 4
nrows 3
xllcorner 0
yllcorner 0
cellsize 5
NODATA_value -9999
10 10 10 10
10 -9999 20 10
10 10 10 10
`
	if err := os.WriteFile(p, []byte(asc), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := heightmap.Load(p, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Width != 4 || g.Height != 3 || g.NodataCount != 1 || !g.IsNodata(g.Index(1, 1)) || g.IsNodata(g.Index(2, 1)) {
		t.Fatalf("size %d×%d nodata %d", g.Width, g.Height, g.NodataCount)
	}
	if g.Spacing != heightmap.SpacingAssumed || g.Dx != 5 || g.Dy != 5 {
		t.Errorf("spacing %v %g×%g, want assumed 5×5", g.Spacing, g.Dx, g.Dy)
	}
	if v := g.Elev[g.Index(1, 1)]; v != 90.0/8 { // mean of seven 10s and one 20
		t.Errorf("filled void = %v, want %v", v, 90.0/8)
	}
	if lo, hi := g.MinMax(); lo != 10 || hi != 20 {
		t.Errorf("min/max %v/%v ignores nodata wrongly", lo, hi)
	}
	g, err = heightmap.Load(p, heightmap.Options{CellSize: 2, ZScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if g.Spacing != heightmap.SpacingCellSize || g.Dx != 2 || g.Elev[0] != 5 {
		t.Errorf("cell size/z scale not applied: %v %g %v", g.Spacing, g.Dx, g.Elev[0])
	}
}

func TestFillNodata(t *testing.T) {
	// A 5×5 void in a 9×9 plane at 7 m fills with 7 m everywhere.
	g := &heightmap.Grid{Width: 9, Height: 9, Elev: make([]float32, 81), Nodata: make([]bool, 81)}
	for i := range g.Elev {
		g.Elev[i] = 7
		c, r := i%9, i/9
		if c >= 2 && c < 7 && r >= 2 && r < 7 {
			g.Nodata[i] = true
			g.Elev[i] = -32768
			g.NodataCount++
		}
	}
	heightmap.FillNodata(g)
	for i, v := range g.Elev {
		if v != 7 {
			t.Fatalf("cell %d = %v after fill", i, v)
		}
	}
	// A void between a low and a high side takes values between them.
	g = &heightmap.Grid{Width: 5, Height: 1, Elev: []float32{0, -1, -1, -1, 100}, Nodata: []bool{false, true, true, true, false}, NodataCount: 3}
	heightmap.FillNodata(g)
	for i := 1; i < 4; i++ {
		if !(g.Elev[i] >= 0 && g.Elev[i] <= 100) {
			t.Errorf("cell %d filled with %v, outside 0…100", i, g.Elev[i])
		}
	}
}

func TestPNG16WithCellSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "height.png")
	img := image.NewGray16(image.Rect(0, 0, 6, 4))
	for y := range 4 {
		for x := range 6 {
			img.Pix[2*(y*6+x)] = byte(y)
			img.Pix[2*(y*6+x)+1] = byte(x) // big-endian 16-bit: y*256 + x
		}
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g, err := heightmap.Load(p, heightmap.Options{CellSize: 1.5, ZScale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if g.Width != 6 || g.Height != 4 || g.Dx != 1.5 || g.Spacing != heightmap.SpacingCellSize {
		t.Fatalf("%d×%d dx %g %v", g.Width, g.Height, g.Dx, g.Spacing)
	}
	if got, want := g.Elev[g.Index(5, 3)], float32((3*256+5)*0.01); math.Abs(float64(got-want)) > 1e-4 {
		t.Errorf("cell (5,3) = %v m, want %v", got, want)
	}
}

func TestRaw16(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, w, h int, order binary.ByteOrder) string {
		b := make([]byte, 2*w*h)
		for i := range w * h {
			order.PutUint16(b[2*i:], uint16(1000+i))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sq := write("square.r16", 8, 8, binary.LittleEndian)
	g, err := heightmap.Load(sq, heightmap.Options{CellSize: 2, ZScale: 1, Window: heightmap.Window{2, 3, 4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Width != 4 || g.Height != 2 || g.Elev[0] != 1000+3*8+2 || g.Elev[7] != 1000+4*8+5 || g.Dx != 2 {
		t.Errorf("square window: %d×%d %v dx %g", g.Width, g.Height, g.Elev, g.Dx)
	}
	rect := write("rect.raw", 5, 3, binary.BigEndian)
	g, err = heightmap.Load(rect, heightmap.Options{RawWidth: 5, RawHeight: 3, RawBigEndian: true, CellSize: 1, ZScale: 0.5, ZOffset: -10})
	if err != nil {
		t.Fatal(err)
	}
	if g.Elev[14] != 1014*0.5-10 || g.Spacing != heightmap.SpacingCellSize {
		t.Errorf("big-endian rect: %v %v", g.Elev, g.Spacing)
	}
	// A game engine's height range: samples 0 to 65535 onto -256 to 256 m.
	g, err = heightmap.Load(sq, heightmap.Options{CellSize: 1, HeightRange: [2]float64{-256, 256}})
	if err != nil {
		t.Fatal(err)
	}
	if want := -256 + 1000*512/65535.0; math.Abs(float64(g.Elev[0])-want) > 1e-3 {
		t.Errorf("height range: sample 1000 at %g m, want %g", g.Elev[0], want)
	}
	if _, err := heightmap.Load(rect, heightmap.Options{CellSize: 1, ZScale: 1}); err == nil || !strings.Contains(err.Error(), "--raw-size") {
		t.Errorf("non-square RAW without size: %v", err)
	}
	if _, err := heightmap.Load(rect, heightmap.Options{RawWidth: 4, RawHeight: 3, CellSize: 1, ZScale: 1}); err == nil {
		t.Error("wrong RAW size accepted")
	}
	// The check before any cell is read (a memory guard, a PVS cell's
	// factor) sees the cell size in metres, as for a georeferenced raster:
	// it read 1 m cells, and took --pvs-cell's metres for cells.
	var seen float64
	check := func(g *heightmap.Grid) error { seen = g.Dx; return nil }
	if _, err := heightmap.Load(sq, heightmap.Options{CellSize: 80, ZScale: 1, Check: check}); err != nil || seen != 80 {
		t.Errorf("the check saw %g m cells (%v), want 80", seen, err)
	}
	// Without its scales a RAW is refused, naming the flags, not guessed.
	for _, tc := range []struct {
		opt  heightmap.Options
		want string
	}{
		{heightmap.Options{}, "--cell-size (metres per cell) and --height-range"},
		{heightmap.Options{ZScale: 1}, "give --cell-size"},
		{heightmap.Options{CellSize: 1}, "give --height-range MIN,MAX"},
		{heightmap.Options{CellSize: 1, HeightRange: [2]float64{5, 5}}, "height range 5 to 5 m"},
	} {
		if _, err := heightmap.Load(sq, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want %q", tc.opt, err, tc.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a raster at all\n"), 0o644)
	empty := filepath.Join(dir, "empty.raw")
	os.WriteFile(empty, nil, 0o644)
	voids := filepath.Join(dir, "voids.asc")
	os.WriteFile(voids, []byte("ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -1\n-1 -1\n"), 0o644)
	hgt := realDEM(t, "N44W072.hgt")
	tests := []struct {
		name string
		path string
		opt  heightmap.Options
		want error
		text string
	}{
		{"missing", filepath.Join(dir, "nope.tif"), heightmap.Options{}, nil, "no such file"},
		{"not a raster", text, heightmap.Options{}, heightmap.ErrNotRaster, "not recognized"},
		{"empty", empty, heightmap.Options{}, heightmap.ErrEmpty, ""},
		{"all nodata", voids, heightmap.Options{}, heightmap.ErrAllNodata, ""},
		{"window outside", hgt, heightmap.Options{Window: heightmap.Window{1200, 0, 2, 2}}, heightmap.ErrWindow, "1201×1201"},
		{"negative cell size", hgt, heightmap.Options{CellSize: -1}, nil, "cell size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := heightmap.Load(tc.path, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.text) || !strings.Contains(err.Error(), tc.path) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q should be one line naming %s and %q", err, tc.path, tc.text)
			}
		})
	}
}

func TestParseWindow(t *testing.T) {
	if w, err := heightmap.ParseWindow("1,2,30,40"); err != nil || w != (heightmap.Window{1, 2, 30, 40}) {
		t.Errorf("got %v, %v", w, err)
	}
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "-1,0,5,5", "0,0,0,5"} {
		if _, err := heightmap.ParseWindow(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestWriteRoundTrip writes a mask and an elevation GeoTIFF on a real
// window's georeferencing and reads them back.
func TestWriteRoundTrip(t *testing.T) {
	g, err := heightmap.Load(realDEM(t, "annarbor-dsm-2ft.tif"), heightmap.Options{Window: heightmap.Window{10, 20, 33, 17}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mask := make([]byte, g.Width*g.Height)
	for i := range mask {
		mask[i] = byte(i % 3)
	}
	mp := filepath.Join(dir, "mask.tif")
	if err := gdal.WriteMask(mp, g.Georef, g.Width, g.Height, mask, nil); err != nil {
		t.Fatal(err)
	}
	m, err := heightmap.Load(mp, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.GeoTransform != g.GeoTransform || m.CRSName != g.CRSName || m.Dx != g.Dx {
		t.Errorf("georeferencing changed: %v %q vs %v %q", m.GeoTransform, m.CRSName, g.GeoTransform, g.CRSName)
	}
	for i, v := range m.Elev {
		if byte(v) != mask[i] {
			t.Fatalf("mask cell %d = %v, want %d", i, v, mask[i])
		}
	}
	g.Nodata = make([]bool, len(g.Elev))
	g.Nodata[5], g.NodataCount = true, 1
	ep := filepath.Join(dir, "elev.tif")
	if err := gdal.WriteElevation(ep, g); err != nil {
		t.Fatal(err)
	}
	e, err := heightmap.Load(ep, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.NodataCount != 1 || !e.IsNodata(5) || e.Elev[6] != g.Elev[6] {
		t.Errorf("elevation round trip: nodata %d, cell 6 %v vs %v", e.NodataCount, e.Elev[6], g.Elev[6])
	}
	if err := gdal.WriteMask(filepath.Join(dir, "missing-dir", "m.tif"), g.Georef, g.Width, g.Height, mask, nil); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(matches) != 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

// TestPNG16: a plain 16-bit grayscale PNG (a game heightmap: no
// georeferencing, no unit) is refused without its scales, read through
// GDAL with them: sample v at HeightRange[0] + v·(HeightRange[1] −
// HeightRange[0])/65535 metres, rows from the top.
func TestPNG16(t *testing.T) {
	const w, h = 6, 4
	img := image.NewGray16(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetGray16(x, y, color.Gray16{Y: uint16(1000*y + 7*x)})
		}
	}
	img.SetGray16(w-1, h-1, color.Gray16{Y: 65535})
	p := filepath.Join(t.TempDir(), "heights.png")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := heightmap.Load(p, heightmap.Options{CellSize: 2}); !errors.Is(err, heightmap.ErrNoScale) || !strings.Contains(err.Error(), "--height-range") {
		t.Errorf("16-bit PNG without a vertical scale: %v", err)
	}
	if _, err := heightmap.Load(p, heightmap.Options{ZScale: 1}); !errors.Is(err, heightmap.ErrNoScale) || !strings.Contains(err.Error(), "--cell-size") {
		t.Errorf("16-bit PNG without a cell size: %v", err)
	}
	g, err := heightmap.Load(p, heightmap.Options{CellSize: 2, HeightRange: [2]float64{100, 100 + 65535*0.01}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Width != w || g.Height != h || g.Dx != 2 || g.Dy != 2 {
		t.Fatalf("%d×%d cells of %g×%g m", g.Width, g.Height, g.Dx, g.Dy)
	}
	for y := range h {
		for x := range w {
			v := float64(1000*y + 7*x)
			if x == w-1 && y == h-1 {
				v = 65535
			}
			if got, want := float64(g.Elev[y*w+x]), 100+v*0.01; math.Abs(got-want) > 1e-3 {
				t.Errorf("cell %d,%d: %g m, want %g", x, y, got, want)
			}
		}
	}
	// The reader of builds without GDAL gives GDAL's grid, window and
	// all, and the same refusals.
	opt := heightmap.Options{CellSize: 2, HeightRange: [2]float64{100, 100 + 65535*0.01}, Window: heightmap.Window{Col: 1, Row: 1, Width: 4, Height: 3}}
	for _, o := range []heightmap.Options{{CellSize: 2, ZScale: 0.01, ZOffset: 100}, {CellSize: 2, ZScale: 0.01, ZOffset: 100, Window: opt.Window}} {
		viaGDAL, err := heightmap.Load(p, o)
		if err != nil {
			t.Fatal(err)
		}
		pure, err := heightmap.LoadPNG(p, o)
		if err != nil {
			t.Fatal(err)
		}
		if pure.Width != viaGDAL.Width || pure.Height != viaGDAL.Height || pure.Dx != viaGDAL.Dx || pure.Driver != viaGDAL.Driver || !slices.Equal(pure.Elev, viaGDAL.Elev) {
			t.Errorf("window %v: without GDAL %d×%d %s %v, GDAL %d×%d %s %v", o.Window, pure.Width, pure.Height, pure.Driver, pure.Elev, viaGDAL.Width, viaGDAL.Height, viaGDAL.Driver, viaGDAL.Elev)
		}
	}
	if _, err := heightmap.LoadPNG(p, heightmap.Options{CellSize: 2}); !errors.Is(err, heightmap.ErrNoScale) {
		t.Errorf("without GDAL, no vertical scale: %v", err)
	}
	rgb := filepath.Join(t.TempDir(), "rgb.png")
	rf, _ := os.Create(rgb)
	png.Encode(rf, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	rf.Close()
	if _, err := heightmap.LoadPNG(rgb, heightmap.Options{CellSize: 2}); err == nil || !strings.Contains(err.Error(), "colour PNG") {
		t.Errorf("without GDAL, a colour PNG: %v", err)
	}
}

// TestImplausibleHeights: cells at heights no terrain has (−3.4e38, GDAL's
// usual nodata when the file does not declare one, +3.4e38, −1e12) read as
// nodata and are counted, where they used to bake silently (one such cell
// hid almost everything); heights just inside the range stay.
func TestImplausibleHeights(t *testing.T) {
	g, err := heightmap.Load("../data/mount-washington.tif", heightmap.Options{Window: heightmap.Window{0, 0, 16, 16}})
	if err != nil {
		t.Fatal(err)
	}
	g.Elev[3*16+3], g.Elev[5*16+5], g.Elev[7*16+7] = -3.4e38, 3.4e38, -1e12
	g.Elev[9*16+9], g.Elev[11*16+11] = heightmap.MinElevation, heightmap.MaxElevation
	path := filepath.Join(t.TempDir(), "absurd.tif")
	if err := gdal.WriteElevation(path, g); err != nil {
		t.Fatal(err)
	}
	h, err := heightmap.Load(path, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Implausible != 3 || h.NodataCount != 3 {
		t.Fatalf("%d implausible cells, %d nodata, want 3 and 3", h.Implausible, h.NodataCount)
	}
	for _, i := range []int{3*16 + 3, 5*16 + 5, 7*16 + 7} {
		if !h.Nodata[i] || h.Elev[i] < heightmap.MinElevation || h.Elev[i] > heightmap.MaxElevation {
			t.Errorf("cell %d: nodata %v, height %g m", i, h.Nodata[i], h.Elev[i])
		}
	}
	if h.Nodata[9*16+9] || h.Elev[11*16+11] != heightmap.MaxElevation {
		t.Errorf("heights at the range's ends were changed")
	}
}

// TestWriteRemovesStaleTemporaries: a temporary file that a killed writer
// left beside a GeoTIFF output (here one older than a minute, unlocked) is
// removed by the next write of that output, and the write leaves none of
// its own (a killed bake's `.tv.tif.tmp…tif` stayed forever).
func TestWriteRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.tif")
	stale := filepath.Join(dir, ".m.tif.tmp123.tif")
	if err := os.WriteFile(stale, []byte("left by a killed writer"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := gdal.WriteMask(path, heightmap.Georef{}, 4, 3, make([]byte, 12), nil); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".m.tif.tmp*"))
	if len(left) != 0 {
		t.Errorf("temporaries left: %v", left)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// TestRawWithENVIHeader: a RAW file with an ENVI header beside it is read
// by the header (size, byte order), which flags cannot contradict.
func TestRawWithENVIHeader(t *testing.T) {
	dir := t.TempDir()
	const w, h = 6, 4
	b := make([]byte, 2*w*h)
	for i := range w * h {
		binary.BigEndian.PutUint16(b[2*i:], uint16(1000+i))
	}
	p := filepath.Join(dir, "t.raw")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	hdr := "ENVI\nsamples = 6\nlines = 4\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 12\ninterleave = bsq\nbyte order = 1\n"
	if err := os.WriteFile(filepath.Join(dir, "t.hdr"), []byte(hdr), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := heightmap.Load(p, heightmap.Options{CellSize: 2, ZScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.Width != w || g.Height != h || g.Elev[0] != 1000 || g.Elev[w*h-1] != 1000+w*h-1 || g.Driver != "ENVI" {
		t.Errorf("%d×%d %s, cells %v", g.Width, g.Height, g.Driver, g.Elev)
	}
	if _, err := heightmap.Load(p, heightmap.Options{CellSize: 2, ZScale: 1, RawWidth: 4, RawHeight: 6}); err == nil || !strings.Contains(err.Error(), "drop --raw-size") {
		t.Errorf("--raw-size against the header: %v", err)
	}
	if _, err := heightmap.Load(p, heightmap.Options{}); !errors.Is(err, heightmap.ErrNoScale) {
		t.Errorf("no scales: %v", err)
	}
}
