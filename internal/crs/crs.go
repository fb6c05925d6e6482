// Package crs describes the coordinate reference systems that builds
// without GDAL place longitude and latitude in: geographic CRSs on datums
// that PROJ relates to WGS 84 by a null transformation (WGS 84, NAD83,
// ETRS89, RGF93, GDA94, GDA2020), and on those datums the projections
// terrain is usually delivered in — UTM and other Transverse Mercator
// grids, Lambert Conformal Conic (one and two standard parallels; the US
// state planes' and Lambert-93's), and Web Mercator.
//
// A CRS comes from an EPSG code (FromEPSG), from a GeoTIFF's GeoKeys
// through its fields, or from WKT 1 as GDAL writes it (Parse); WKT gives
// it back in GDAL's own WKT 1 form, so that a store baked without GDAL
// records the same text as one baked with it. ToLonLat and FromLonLat
// convert points; tests against GDAL hold them within a millimetre.
//
// Values are immutable once built; every method is safe for concurrent
// use.
package crs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrUnsupported is wrapped by the errors of a CRS this package cannot
// convert without GDAL.
var ErrUnsupported = errors.New("crs: not supported without GDAL")

// Ellipsoid is a reference ellipsoid: semi-major axis A in metres and
// inverse flattening InvF (0 for a sphere).
type Ellipsoid struct {
	Name string
	A    float64
	InvF float64
	EPSG int
}

// Datum is a geodetic datum; WKTName is its name as WKT 1 spells it
// ("WGS_1984").
type Datum struct {
	WKTName   string
	EPSG      int
	Ellipsoid Ellipsoid
}

// Unit is a linear unit: metres per unit.
type Unit struct {
	Name   string
	Metres float64
	EPSG   int
}

// Method names a map projection.
type Method int

// The projections this package computes. None is a geographic CRS.
const (
	None Method = iota
	TransverseMercator
	LambertConic1SP
	LambertConic2SP
	WebMercator
)

var methodWKT = map[Method]string{
	TransverseMercator: "Transverse_Mercator",
	LambertConic1SP:    "Lambert_Conformal_Conic_1SP",
	LambertConic2SP:    "Lambert_Conformal_Conic_2SP",
	WebMercator:        "Mercator_1SP",
}

// CRS is a geographic CRS (Method None: longitude and latitude in degrees)
// or a projected one on it. Angles are degrees; FalseEasting and
// FalseNorthing are in Unit.
type CRS struct {
	Name     string // "WGS 84 / UTM zone 19N"; "unnamed" for a user-defined one
	EPSG     int    // 0 when the CRS has no EPSG code
	GeogName string // the geographic CRS's name ("WGS 84")
	GeogEPSG int
	Datum    Datum
	Method   Method
	Unit     Unit // linear unit of a projected CRS

	LatOrigin, CentralMeridian float64 // degrees
	StdParallel1, StdParallel2 float64 // degrees (Lambert 2SP)
	Scale                      float64 // at the natural origin (TM, Lambert 1SP)
	FalseEasting               float64 // Unit
	FalseNorthing              float64 // Unit

	// GDAL omits the prime meridian's authority in the WKT of a
	// user-defined GeoTIFF CRS (a GeoKey CRS); PrimeMeridianBare says so.
	PrimeMeridianBare bool

	proj projection
}

// Geographic reports whether c is a geographic CRS (degrees).
func (c *CRS) Geographic() bool { return c.Method == None }

// Ellipsoids and datums of the supported geographic CRSs.
var (
	wgs84  = Ellipsoid{"WGS 84", 6378137, 298.257223563, 7030}
	grs80  = Ellipsoid{"GRS 1980", 6378137, 298.257222101, 7019}
	metre  = Unit{"metre", 1, 9001}
	foot   = Unit{"foot", 0.3048, 9002}
	usFoot = Unit{"US survey foot", 0.30480060960121924, 9003} // PROJ's 1200/3937, one ulp up
)

// geographic lists the geographic CRSs, by EPSG code: name, datum.
var geographic = map[int]struct {
	name  string
	datum Datum
}{
	4326: {"WGS 84", Datum{"WGS_1984", 6326, wgs84}},
	4269: {"NAD83", Datum{"North_American_Datum_1983", 6269, grs80}},
	4258: {"ETRS89", Datum{"European_Terrestrial_Reference_System_1989", 6258, grs80}},
	4171: {"RGF93 v1", Datum{"Reseau_Geodesique_Francais_1993_v1", 6171, grs80}},
	4283: {"GDA94", Datum{"Geocentric_Datum_of_Australia_1994", 6283, grs80}},
	7844: {"GDA2020", Datum{"Geocentric_Datum_of_Australia_2020", 1168, grs80}},
}

// datumByEPSG finds a supported datum by its own EPSG code (GeoTIFF's
// GeogGeodeticDatumGeoKey) and returns its geographic CRS's code.
func datumByEPSG(code int) (int, bool) {
	for g, d := range geographic {
		if d.datum.EPSG == code {
			return g, true
		}
	}
	return 0, false
}

// FromEPSG returns the CRS of an EPSG code: the geographic CRSs above;
// UTM zones on WGS 84 (326zz north, 327zz south), NAD83 (269zz, zones 1
// to 23), ETRS89 (258zz, zones 28 to 37) and MGA zones of GDA94 (283zz, 48 to
// 58) and GDA2020 (78zz, 46 to 59); Web Mercator (3857); Lambert-93 (2154). Other codes
// wrap ErrUnsupported.
func FromEPSG(code int) (*CRS, error) {
	if g, ok := geographic[code]; ok {
		return build(&CRS{Name: g.name, EPSG: code, GeogName: g.name, GeogEPSG: code, Datum: g.datum})
	}
	utm := func(geog, zone int, south bool, prefix string) (*CRS, error) {
		g := geographic[geog]
		h, fn := "N", 0.0
		if south {
			h, fn = "S", 10000000
		}
		name := fmt.Sprintf("%s / UTM zone %d%s", prefix, zone, h)
		if strings.HasSuffix(prefix, "MGA") {
			name = fmt.Sprintf("%s zone %d", prefix, zone)
		}
		return build(&CRS{
			Name: name, EPSG: code,
			GeogName: g.name, GeogEPSG: geog, Datum: g.datum, Method: TransverseMercator, Unit: metre,
			CentralMeridian: float64(6*zone - 183), Scale: 0.9996, FalseEasting: 500000, FalseNorthing: fn,
		})
	}
	switch {
	case code > 32600 && code <= 32660:
		return utm(4326, code-32600, false, "WGS 84")
	case code > 32700 && code <= 32760:
		return utm(4326, code-32700, true, "WGS 84")
	case code > 26900 && code <= 26923:
		return utm(4269, code-26900, false, "NAD83")
	case code >= 25828 && code <= 25837:
		return utm(4258, code-25800, false, "ETRS89")
	case code >= 28348 && code <= 28358:
		return utm(4283, code-28300, true, "GDA94 / MGA")
	case code >= 7846 && code <= 7859:
		return utm(7844, code-7800, true, "GDA2020 / MGA")
	case code == 3857:
		g := geographic[4326]
		return build(&CRS{Name: "WGS 84 / Pseudo-Mercator", EPSG: 3857, GeogName: g.name, GeogEPSG: 4326,
			Datum: g.datum, Method: WebMercator, Unit: metre, Scale: 1})
	case code == 2154:
		g := geographic[4171]
		return build(&CRS{Name: "RGF93 v1 / Lambert-93", EPSG: 2154, GeogName: g.name, GeogEPSG: 4171,
			Datum: g.datum, Method: LambertConic2SP, Unit: metre,
			LatOrigin: 46.5, CentralMeridian: 3, StdParallel1: 49, StdParallel2: 44,
			FalseEasting: 700000, FalseNorthing: 6600000})
	}
	return nil, fmt.Errorf("%w: EPSG:%d", ErrUnsupported, code)
}

// New checks a CRS assembled field by field (from a GeoTIFF's GeoKeys) and
// prepares its projection. Errors wrap ErrUnsupported for a datum that is
// not a null transformation from WGS 84 or a method this package lacks.
func New(c CRS) (*CRS, error) { return build(&c) }

func build(c *CRS) (*CRS, error) {
	e := c.Datum.Ellipsoid
	if !(e.A > 0) || e.InvF < 0 || math.IsInf(e.A, 0) || math.IsNaN(e.InvF) {
		return nil, fmt.Errorf("%w: ellipsoid a = %g m, 1/f = %g", ErrUnsupported, e.A, e.InvF)
	}
	if c.Method != None {
		if !(c.Unit.Metres > 0) || math.IsInf(c.Unit.Metres, 0) {
			return nil, fmt.Errorf("%w: linear unit %q of %g m", ErrUnsupported, c.Unit.Name, c.Unit.Metres)
		}
		for _, v := range []float64{c.LatOrigin, c.CentralMeridian, c.StdParallel1, c.StdParallel2, c.Scale, c.FalseEasting, c.FalseNorthing} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: a projection parameter is %g", ErrUnsupported, v)
			}
		}
	}
	switch c.Method {
	case None:
	case TransverseMercator:
		if !(c.Scale > 0) {
			return nil, fmt.Errorf("%w: Transverse Mercator scale %g", ErrUnsupported, c.Scale)
		}
		c.proj = newTM(c)
	case LambertConic1SP, LambertConic2SP:
		p, err := newLCC(c)
		if err != nil {
			return nil, err
		}
		c.proj = p
	case WebMercator:
		c.proj = webMercator{}
	default:
		return nil, fmt.Errorf("%w: projection method %d", ErrUnsupported, c.Method)
	}
	return c, nil
}

// projection converts between radians on the datum and metres on the map,
// without false origin.
type projection interface {
	forward(lam, phi float64) (x, y float64)
	inverse(x, y float64) (lam, phi float64)
}

// ToLonLat converts points (x[i], y[i]) in place from the CRS (GIS order:
// easting or longitude first) to longitude and latitude in degrees on
// WGS 84. A point the projection cannot invert becomes NaN. Errors (the
// points then partly converted) wrap ErrUnsupported for a point outside
// the area where PROJ relates the datum to WGS 84 by a null
// transformation (NAD83: Hawaii and the Aleutians are shifted).
func (c *CRS) ToLonLat(x, y []float64) error {
	u := c.Unit.Metres
	for i := range x {
		if c.proj != nil {
			lam, phi := c.proj.inverse(float64(x[i]-c.FalseEasting)*u, float64(y[i]-c.FalseNorthing)*u)
			x[i] = lam*180/math.Pi + c.CentralMeridian
			y[i] = phi * 180 / math.Pi
			if x[i] > 180 || x[i] < -180 {
				x[i] = math.Remainder(x[i], 360)
			}
		}
		if err := c.inArea(x[i], y[i]); err != nil {
			return err
		}
	}
	return nil
}

// FromLonLat converts points in place from longitude and latitude in
// degrees on WGS 84 to the CRS, GIS order. Errors as ToLonLat.
func (c *CRS) FromLonLat(x, y []float64) error {
	u := c.Unit.Metres
	for i := range x {
		if err := c.inArea(x[i], y[i]); err != nil {
			return err
		}
		if c.proj == nil {
			continue
		}
		lam := math.Remainder(x[i]-c.CentralMeridian, 360) * math.Pi / 180
		px, py := c.proj.forward(lam, y[i]*math.Pi/180)
		x[i] = px/u + c.FalseEasting
		y[i] = py/u + c.FalseNorthing
	}
	return nil
}

// nad83Area is where PROJ converts NAD83 to WGS 84 by EPSG:1188, a null
// transformation (the contiguous United States, Canada, mainland Alaska),
// cut to a box that leaves out Hawaii and the Aleutians, which it shifts
// by a metre or more: west, south, east, north, degrees.
var nad83Area = [4]float64{-164, 23.8, -47, 86}

func (c *CRS) inArea(lon, lat float64) error {
	if c.Datum.EPSG != 6269 && c.Datum.WKTName != "North_American_Datum_1983" {
		return nil
	}
	a := nad83Area
	if lon >= a[0] && lon <= a[2] && lat >= a[1] && lat <= a[3] || math.IsNaN(lon) || math.IsNaN(lat) {
		return nil
	}
	return fmt.Errorf("%w: NAD83 lon/lat %.4f,%.4f lies outside %g…%g°E, %g…%g°N, where PROJ takes NAD83 for WGS 84", ErrUnsupported, lon, lat, a[0], a[2], a[1], a[3])
}

// num formats a number as GDAL's WKT 1 writer does (%.15g).
func num(v float64) string { return strconv.FormatFloat(v, 'g', 15, 64) }

func authority(code int) string {
	if code == 0 {
		return ""
	}
	return `,AUTHORITY["EPSG","` + strconv.Itoa(code) + `"]`
}

// WKT returns c as WKT 1 in the single-line form GDAL's exportToWkt
// gives (axis order as GDAL's "traditional GIS order" export).
func (c *CRS) WKT() string {
	var b strings.Builder
	e := c.Datum.Ellipsoid
	pm := `PRIMEM["Greenwich",0` + authority(8901) + `]`
	if c.PrimeMeridianBare {
		pm = `PRIMEM["Greenwich",0]`
	}
	geog := `GEOGCS["` + c.GeogName + `",DATUM["` + c.Datum.WKTName + `",SPHEROID["` + e.Name + `",` + num(e.A) + `,` + num(e.InvF) +
		authority(e.EPSG) + `]` + authority(c.Datum.EPSG) + `],` + pm + `,UNIT["degree",0.0174532925199433` + authority(9122) + `]`
	if c.Method == None {
		b.WriteString(geog + `,AXIS["Latitude",NORTH],AXIS["Longitude",EAST]` + authority(c.EPSG) + `]`)
		return b.String()
	}
	b.WriteString(`PROJCS["` + c.Name + `",` + geog + authority(c.GeogEPSG) + `],PROJECTION["` + methodWKT[c.Method] + `"]`)
	param := func(name string, v float64) { b.WriteString(`,PARAMETER["` + name + `",` + num(v) + `]`) }
	switch c.Method {
	case TransverseMercator, LambertConic1SP:
		param("latitude_of_origin", c.LatOrigin)
		param("central_meridian", c.CentralMeridian)
		param("scale_factor", c.Scale)
	case LambertConic2SP:
		param("latitude_of_origin", c.LatOrigin)
		param("central_meridian", c.CentralMeridian)
		param("standard_parallel_1", c.StdParallel1)
		param("standard_parallel_2", c.StdParallel2)
	case WebMercator:
		param("central_meridian", c.CentralMeridian)
		param("scale_factor", c.Scale)
	}
	param("false_easting", c.FalseEasting)
	param("false_northing", c.FalseNorthing)
	b.WriteString(`,UNIT["` + c.Unit.Name + `",` + num(c.Unit.Metres) + authority(c.Unit.EPSG) + `],AXIS["Easting",EAST],AXIS["Northing",NORTH]`)
	if c.Method == WebMercator {
		b.WriteString(`,EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"]`)
	}
	b.WriteString(authority(c.EPSG) + `]`)
	return b.String()
}

// GeographicOfDatum returns the EPSG code of the geographic CRS on a
// datum given by its own EPSG code (6326 → 4326), when the datum is one
// this package converts.
func GeographicOfDatum(datum int) (int, bool) { return datumByEPSG(datum) }
