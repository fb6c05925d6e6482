package heightmap_test

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
)

// sameAsGDAL loads path through GDAL and through the readers of builds
// without GDAL and fails unless the grids agree: every cell's bits and
// nodata mark, the geotransform's bits, the spacing, the CRS's WKT and
// name (the name when wantName: GDAL names a user-defined CRS by the
// EPSG entry it matches, which needs its database) and the lon/lat lattice within LonLatTolerance.
func sameAsGDAL(t *testing.T, path string, opt heightmap.Options, wantName bool) {
	t.Helper()
	want, err := heightmap.Load(path, opt)
	if err != nil {
		t.Fatalf("GDAL: %v", err)
	}
	got, err := heightmap.LoadWithoutGDAL(path, opt)
	if err != nil {
		t.Fatalf("without GDAL: %v", err)
	}
	if got.Width != want.Width || got.Height != want.Height {
		t.Fatalf("%s: %d×%d, GDAL %d×%d", path, got.Width, got.Height, want.Width, want.Height)
	}
	for i := range want.Elev {
		if math.Float32bits(got.Elev[i]) != math.Float32bits(want.Elev[i]) || got.IsNodata(i) != want.IsNodata(i) {
			t.Fatalf("%s: cell %d: %v (nodata %v), GDAL %v (nodata %v)", path, i, got.Elev[i], got.IsNodata(i), want.Elev[i], want.IsNodata(i))
		}
	}
	if got.GeoTransform != want.GeoTransform || got.HasGeoTransform != want.HasGeoTransform {
		t.Fatalf("%s: geotransform %v, GDAL %v", path, got.GeoTransform, want.GeoTransform)
	}
	if got.Dx != want.Dx || got.Dy != want.Dy || got.Spacing != want.Spacing || got.ZScale != want.ZScale {
		t.Fatalf("%s: spacing %v×%v m (%s), z scale %v; GDAL %v×%v m (%s), %v", path, got.Dx, got.Dy, got.Spacing, got.ZScale, want.Dx, want.Dy, want.Spacing, want.ZScale)
	}
	if got.CRS != want.CRS || wantName && got.CRSName != want.CRSName {
		t.Fatalf("%s: CRS %s %q\nGDAL's %s %q", path, got.CRSName, got.CRS, want.CRSName, want.CRS)
	}
	if (got.LonLat == nil) != (want.LonLat == nil) {
		t.Fatalf("%s: lon/lat grid %v, GDAL's %v", path, got.LonLat != nil, want.LonLat != nil)
	}
	if want.LonLat != nil {
		for _, uv := range [][2]float64{{0.5, 0.5}, {float64(want.Width) / 3, float64(want.Height) / 2}, {float64(want.Width) - 0.5, float64(want.Height) - 0.5}} {
			lon1, lat1 := got.LonLat.LonLat(uv[0], uv[1])
			lon2, lat2 := want.LonLat.LonLat(uv[0], uv[1])
			d := math.Hypot((lon1-lon2)*math.Cos(lat2*math.Pi/180), lat1-lat2) * 111320
			if !(d <= heightmap.LonLatTolerance) {
				t.Fatalf("%s: lon/lat at cell %v is %.3g m from GDAL's", path, uv, d)
			}
		}
	}
}

// TestGeoTIFFWithoutGDAL: the GeoTIFF and HGT readers of builds without
// GDAL read the repository's and the shared data's rasters as GDAL does,
// and every variant gdal_translate writes of them: Deflate, LZW,
// PackBits and ZSTD, predictors 2 and 3, tiles, BigTIFF, big-endian,
// Int16/UInt16/Int32/Float32/Float64, PixelIsPoint, in windows.
func TestGeoTIFFWithoutGDAL(t *testing.T) {
	shared := filepath.Join("..", "..", "shared", "data")
	files := []struct {
		path     string
		wantName bool
	}{
		{filepath.Join("..", "data", "mount-washington.tif"), true},
		{filepath.Join("..", "data", "demo-hills.tif"), true},
		{filepath.Join("..", "data", "demo-urban.tif"), true},
		{filepath.Join(shared, "annarbor-dsm-2ft.tif"), false},
		{filepath.Join(shared, "N44W072.hgt"), true},
	}
	for _, f := range files {
		if _, err := os.Stat(f.path); err != nil {
			t.Logf("skipping %s: %v", f.path, err)
			continue
		}
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			sameAsGDAL(t, f.path, heightmap.Options{}, f.wantName)
			sameAsGDAL(t, f.path, heightmap.Options{Window: heightmap.Window{Col: 17, Row: 33, Width: 61, Height: 45}}, f.wantName)
		})
	}
	if _, err := exec.LookPath("gdal_translate"); err != nil {
		t.Skip("no gdal_translate (Debian: gdal-bin) for the variants")
	}
	src := filepath.Join("..", "data", "mount-washington.tif")
	dir := t.TempDir()
	for _, v := range []struct {
		name string
		args []string
	}{
		{"none-strips", []string{"-co", "COMPRESS=NONE"}},
		{"lzw-pred2", []string{"-co", "COMPRESS=LZW", "-co", "PREDICTOR=2"}},
		{"deflate-tiled", []string{"-co", "COMPRESS=DEFLATE", "-co", "TILED=YES", "-co", "BLOCKXSIZE=64", "-co", "BLOCKYSIZE=32"}},
		{"packbits", []string{"-co", "COMPRESS=PACKBITS", "-co", "BLOCKYSIZE=7"}},
		{"zstd-tiled", []string{"-co", "COMPRESS=ZSTD", "-co", "TILED=YES"}},
		{"bigtiff-msb", []string{"-co", "BIGTIFF=YES", "-co", "ENDIANNESS=BIG", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2"}},
		{"uint16", []string{"-ot", "UInt16", "-a_nodata", "0", "-co", "COMPRESS=LZW"}},
		{"int32-tiled", []string{"-ot", "Int32", "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2"}},
		{"float32-pred3", []string{"-ot", "Float32", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=3", "-co", "TILED=YES"}},
		{"float64-pred3-msb", []string{"-ot", "Float64", "-co", "COMPRESS=LZW", "-co", "PREDICTOR=3", "-co", "ENDIANNESS=BIG"}},
		{"float32-scaled", []string{"-ot", "Float32", "-a_scale", "0.5", "-a_offset", "10", "-co", "COMPRESS=DEFLATE"}},
		{"utm-area", []string{"-a_srs", "EPSG:32619", "-a_ullr", "300000", "4930000", "307680", "4922320", "-mo", "AREA_OR_POINT=Area"}},
		{"lambert93", []string{"-a_srs", "EPSG:2154", "-a_ullr", "700000", "6600000", "702560", "6597440"}},
		{"webmercator-tiled", []string{"-a_srs", "EPSG:3857", "-a_ullr", "-7950000", "5530000", "-7947440", "5527440", "-co", "TILED=YES"}},
		{"nad83-utm", []string{"-a_srs", "EPSG:26919", "-a_ullr", "300000", "4930000", "307680", "4922320", "-co", "COMPRESS=LZW"}},
		{"two-bands", []string{"-b", "1", "-b", "1", "-co", "INTERLEAVE=BAND", "-co", "COMPRESS=DEFLATE"}},
		{"user-tm", []string{"-a_srs", "+proj=tmerc +lat_0=0 +lon_0=-71 +k=0.9999 +x_0=300000 +y_0=0 +datum=WGS84 +units=m", "-a_ullr", "300000", "4930000", "307680", "4922320"}},
		{"user-lcc1sp-usft", []string{"-a_srs", "+proj=lcc +lat_1=44 +lat_0=44 +lon_0=-71 +k_0=0.9999 +x_0=500000 +y_0=0 +datum=NAD83 +units=us-ft", "-a_ullr", "500000", "100000", "525000", "75000"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			out := filepath.Join(dir, v.name+".tif")
			cmd := exec.Command("gdal_translate", append(append([]string{"-q"}, v.args...), src, out)...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gdal_translate %v: %v\n%s", v.args, err, b)
			}
			opt := heightmap.Options{}
			if v.name == "two-bands" {
				opt.Band = 2
			}
			named := !strings.HasPrefix(v.name, "user-") // GDAL names these by an EPSG match
			sameAsGDAL(t, out, opt, named)
			opt.Window = heightmap.Window{Col: 100, Row: 90, Width: 70, Height: 50}
			sameAsGDAL(t, out, opt, named)
		})
	}
}

// TestLonLatGridWithoutGDAL: the lon/lat lattices a build without GDAL
// records are GDAL's, bit for bit (both rounded to 10⁻⁹ degrees): on
// geographic, UTM (north, south, across the antimeridian), NAD83 UTM,
// ETRS89 UTM, Web Mercator and Lambert-93 grids.
func TestLonLatGridWithoutGDAL(t *testing.T) {
	for _, tc := range []struct {
		epsg int
		gt   [6]float64
		w, h int
	}{
		{4326, [6]float64{-71.35, 1.0 / 1200, 0, 44.35, 0, -1.0 / 1200}, 256, 256},
		{32619, [6]float64{300000, 30, 0, 4900000, 0, -30}, 300, 200},
		{32719, [6]float64{300000, 30, 0, 6900000, 0, -30}, 4097, 4097},
		{32660, [6]float64{600000, 1000, 0, 7000000, 0, -1000}, 100, 20},
		{26918, [6]float64{580000, 1, 0, 4510000, 0, -1}, 2049, 2049},
		{25832, [6]float64{480000, 25, 0, 5550000, 0, -25}, 400, 300},
		{3857, [6]float64{-7900000, 50, 0, 5500000, 0, -50}, 200, 200},
		{2154, [6]float64{640000, 5, 0, 6860000, 0, -5}, 512, 512},
	} {
		wkt, err := gdal.CRSFromEPSG(tc.epsg)
		if err != nil {
			t.Fatal(err)
		}
		ref := heightmap.Georef{GeoTransform: tc.gt, HasGeoTransform: true, CRS: wkt}
		want, err := heightmap.NewLonLatGrid(ref, tc.w, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := heightmap.NewLonLatGridWithoutGDAL(ref, tc.w, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("EPSG:%d: lattice %d×%d (error %g m), GDAL's %d×%d (error %g m) or other values", tc.epsg, got.Cols, got.Rows, got.MaxErrorM, want.Cols, want.Rows, want.MaxErrorM)
			for i := range min(len(got.Degrees), len(want.Degrees)) {
				if got.Degrees[i] != want.Degrees[i] {
					t.Logf("  value %d: %.17g, GDAL %.17g", i, got.Degrees[i], want.Degrees[i])
				}
			}
		}
	}
}
