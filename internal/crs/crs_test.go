package crs

import (
	"errors"
	"math"
	"testing"
)

// TestRoundTrip: for every projection, FromLonLat then ToLonLat gives the
// point back within a micrometre's worth of degrees, and Parse reads
// WKT's output back to the same WKT (GDAL's own text is checked against
// these in heightmap/gdal's TestPureGoCRS).
func TestRoundTrip(t *testing.T) {
	for _, code := range []int{4326, 32619, 32719, 26918, 25832, 28355, 7849, 3857, 2154} {
		c, err := FromEPSG(code)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(c.WKT())
		if err != nil || p.WKT() != c.WKT() {
			t.Fatalf("EPSG:%d: Parse(WKT) = %v, %v", code, p, err)
		}
		lon, lat := c.CentralMeridian+1.3, 45.7
		switch code {
		case 32719, 28355, 7849:
			lat = -33.2
		case 26918:
			lat = 40.1
		}
		x, y := []float64{lon}, []float64{lat}
		if err := c.FromLonLat(x, y); err != nil {
			t.Fatal(err)
		}
		if err := c.ToLonLat(x, y); err != nil {
			t.Fatal(err)
		}
		if math.Abs(x[0]-lon) > 1e-11 || math.Abs(y[0]-lat) > 1e-11 {
			t.Errorf("EPSG:%d: %g,%g came back as %.14g,%.14g", code, lon, lat, x[0], y[0])
		}
	}
}

// TestUnsupported: what this package cannot convert is ErrUnsupported,
// named: another datum, WKT 2, an unknown code, NAD83 outside the area
// where PROJ takes it for WGS 84.
func TestUnsupported(t *testing.T) {
	for _, wkt := range []string{
		`GEOGCS["OSGB 1936",DATUM["OSGB_1936",SPHEROID["Airy 1830",6377563.396,299.3249646]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]`,
		`GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]]]`,
		`PROJCS["x",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Polar_Stereographic"],UNIT["metre",1]]`,
		`GEOGCS["WGS 84"`,
	} {
		if _, err := Parse(wkt); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%.40s…: %v, want ErrUnsupported", wkt, err)
		}
	}
	if _, err := FromEPSG(27700); !errors.Is(err, ErrUnsupported) {
		t.Errorf("EPSG:27700: %v", err)
	}
	c, _ := FromEPSG(4269)
	if err := c.FromLonLat([]float64{-157.8}, []float64{21.3}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("NAD83 in Hawaii: %v", err)
	}
}

// FuzzParse feeds the WKT reader arbitrary text, seeded with the WKT of
// each kind of CRS: an error or a CRS, never a panic, and a CRS it
// accepts converts without one.
func FuzzParse(f *testing.F) {
	for _, code := range []int{4326, 4269, 32619, 3857, 2154} {
		c, _ := FromEPSG(code)
		f.Add(c.WKT())
	}
	f.Add(`PROJCS["unnamed",GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101004,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6269"]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4269"]],PROJECTION["Lambert_Conformal_Conic_2SP"],PARAMETER["latitude_of_origin",41.5],PARAMETER["central_meridian",-84.3666666666667],PARAMETER["standard_parallel_1",43.6666666666667],PARAMETER["standard_parallel_2",42.1],PARAMETER["false_easting",13123359.58],PARAMETER["false_northing",0],UNIT["foot",0.3048,AUTHORITY["EPSG","9002"]]]`)
	f.Fuzz(func(t *testing.T, wkt string) {
		c, err := Parse(wkt)
		if err != nil {
			return
		}
		x, y := []float64{-80, 10, 0}, []float64{40, -10, 89}
		_ = c.FromLonLat(x, y)
		_ = c.ToLonLat(x, y)
		_ = c.WKT()
	})
}
