package heightmap

import (
	"encoding/xml"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/frontiersets/frontiersets/internal/crs"
)

// readGeoTIFF reads a GeoTIFF without GDAL, as GDAL's GTiff driver would:
// it has the signature of Driver.Read. The geotransform comes from
// ModelPixelScale and the first ModelTiepoint, or from
// ModelTransformation, moved half a cell up and left for PixelIsPoint
// rasters (as GDAL does by default); the CRS from the GeoKeys (an EPSG
// code package crs knows, or a user-defined Transverse Mercator or
// Lambert Conformal Conic on a datum it knows; other codes give the
// spacing only); nodata from GDAL_NODATA; scale, offset and the unit
// from GDAL_METADATA. Cells come row-major, float32, as Driver.Read's.
// Errors: *TIFFError (wrapping ErrNotRaster) for a file it cannot read,
// naming the byte offset; ErrEmpty; ErrBands for several bands and no
// band asked; the plan's.
func readGeoTIFF(path string, band int, plan func(RasterInfo) (Window, error)) (RasterInfo, []float32, error) {
	var info RasterInfo
	f, size, err := openFile(path)
	if err != nil {
		return info, nil, err
	}
	defer f.Close()
	t, err := openTIFF(f, size)
	if err != nil {
		return info, nil, err
	}
	info.Driver = "GTiff"
	info.Width, info.Height = t.width, t.height
	info.DataType = t.dataType()
	switch {
	case band == 0 && t.spp > 1:
		return info, nil, fmt.Errorf("%w: %s; pick the elevation band with --band N", ErrBands, t.describeBands())
	case band == 0:
		band = 1
	case band < 0 || band > t.spp:
		return info, nil, fmt.Errorf("band %d: the raster has %d (%s)", band, t.spp, t.describeBands())
	}
	if err := t.georef(&info); err != nil {
		return info, nil, err
	}
	info.Scale, info.Offset = 1, 0
	if err := t.gdalMetadata(&info, band-1); err != nil {
		return info, nil, err
	}
	if s, err := t.ascii(tagGDALNodata); err != nil {
		return info, nil, err
	} else if s = strings.TrimSpace(s); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return info, nil, tiffErr(t.tags[tagGDALNodata].at, "GDAL_NODATA %q is not a number", s)
		}
		info.Nodata, info.HasNodata = v, true
	}
	win, err := plan(info)
	if err != nil {
		return info, nil, err
	}
	data, err := t.readBand(band-1, win)
	return info, data, err
}

func (t *tiffImage) describeBands() string {
	parts := make([]string, t.spp)
	for i := range parts {
		parts[i] = fmt.Sprintf("%d %s", i+1, t.dataType())
	}
	return strings.Join(parts, ", ")
}

// GeoKeys read (GeoTIFF 1.1, section 7).
const (
	keyModelType      = 1024
	keyRasterType     = 1025
	keyCitation       = 1026
	keyGeographic     = 2048
	keyGeodeticDatum  = 2050
	keyAngularUnits   = 2054
	keySemiMajor      = 2057
	keyInvFlattening  = 2059
	keyProjected      = 3072
	keyPCSCitation    = 3073
	keyProjMethod     = 3075
	keyLinearUnits    = 3076
	keyStdParallel1   = 3078
	keyStdParallel2   = 3079
	keyNatOriginLong  = 3080
	keyNatOriginLat   = 3081
	keyFalseEasting   = 3082
	keyFalseNorthing  = 3083
	keyFalseOrigLong  = 3084
	keyFalseOrigLat   = 3085
	keyFalseOrigEast  = 3086
	keyFalseOrigNorth = 3087
	keyScaleNatOrigin = 3092
	userDefined       = 32767
)

// geoKeyDir is a GeoTIFF's GeoKey directory, by key: the short keys, the
// double keys (from GeoDoubleParams) and the ASCII keys (from
// GeoAsciiParams, without GeoTIFF's closing '|').
type geoKeyDir struct {
	ints map[int]int
	dbl  map[int]float64
	txt  map[int]string
}

// geoKeys returns the GeoKey directory, nil when the file has none.
func (t *tiffImage) geoKeys() (*geoKeyDir, error) {
	dir, err := t.uints(tagGeoKeys)
	if err != nil || dir == nil {
		return nil, err
	}
	doubles, err := t.floats(tagGeoDoubles)
	if err != nil {
		return nil, err
	}
	ascii, err := t.ascii(tagGeoASCII)
	if err != nil {
		return nil, err
	}
	at := t.tags[tagGeoKeys].at
	if len(dir) < 4 {
		return nil, tiffErr(at, "GeoKey directory of %d values, shorter than its header", len(dir))
	}
	if dir[3] > uint64(len(dir)) || uint64(len(dir)) < 4+4*dir[3] {
		return nil, tiffErr(at, "GeoKey directory of %d values declares %d keys", len(dir), dir[3])
	}
	k := &geoKeyDir{ints: map[int]int{}, dbl: map[int]float64{}, txt: map[int]string{}}
	for i := range int(dir[3]) {
		e := dir[4+4*i:]
		id, loc, count, val := int(e[0]), e[1], e[2], e[3]
		switch {
		case loc == 0:
			k.ints[id] = int(val)
		case loc == tagGeoDoubles && count >= 1 && val < uint64(len(doubles)):
			k.dbl[id] = doubles[val]
		case loc == tagGeoASCII && val <= uint64(len(ascii)) && count <= uint64(len(ascii))-val:
			k.txt[id] = strings.TrimSuffix(ascii[val:val+count], "|")
		}
	}
	return k, nil
}

// georef sets info's geotransform and CRS from the GeoTIFF tags.
func (t *tiffImage) georef(info *RasterInfo) error {
	keys, err := t.geoKeys()
	if err != nil {
		return err
	}
	point := keys != nil && keys.ints[keyRasterType] == 2
	gt := [6]float64{0, 1, 0, 0, 0, 1}
	scale, err := t.floats(tagPixelScale)
	if err != nil {
		return err
	}
	tie, err := t.floats(tagTiepoint)
	if err != nil {
		return err
	}
	matrix, err := t.floats(tagTransformation)
	if err != nil {
		return err
	}
	switch {
	case len(scale) >= 2 && scale[0] != 0 && scale[1] != 0:
		if len(tie) < 6 {
			break
		}
		gt[1], gt[5] = scale[0], -math.Abs(scale[1])
		gt[0] = tie[3] - float64(tie[0]*gt[1])
		gt[3] = tie[4] - float64(tie[1]*gt[5])
		info.HasGeoTransform = true
	case len(matrix) == 16:
		gt = [6]float64{matrix[3], matrix[0], matrix[1], matrix[7], matrix[4], matrix[5]}
		info.HasGeoTransform = true
	}
	if info.HasGeoTransform && point {
		gt[0] -= float64(gt[1]*0.5) + float64(gt[2]*0.5)
		gt[3] -= float64(gt[4]*0.5) + float64(gt[5]*0.5)
	}
	for _, v := range gt {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return tiffErr(t.tags[tagPixelScale].at, "geotransform %v is not finite", gt)
		}
	}
	if info.HasGeoTransform {
		info.GeoTransform = gt
	}
	if keys != nil {
		info.CRS = keys.crs()
	}
	return nil
}

// linearUnits are the EPSG linear units GeoKeys name.
var linearUnits = map[int]crs.Unit{
	9001: {Name: "metre", Metres: 1, EPSG: 9001},
	9002: {Name: "foot", Metres: 0.3048, EPSG: 9002},
	9003: {Name: "US survey foot", Metres: 0.30480060960121924, EPSG: 9003},
}

// crs returns the CRS the GeoKeys describe: with WKT where package crs
// knows it (lon/lat can then be placed), else only what the spacing
// needs, or nil.
func (k *geoKeyDir) crs() *CRSInfo {
	keys, dbl := k.ints, k.dbl
	var c *crs.CRS
	var name string
	switch keys[keyModelType] {
	case 2:
		code := keys[keyGeographic]
		if code == userDefined || code == 0 {
			code, _ = k.geographic()
		}
		c, _ = crs.FromEPSG(code)
		if c == nil {
			info := &CRSInfo{Name: fmt.Sprintf("EPSG:%d", keys[keyGeographic]), Geographic: true, AngularUnit: math.Pi / 180,
				SemiMajor: dbl[keySemiMajor], InvFlattening: dbl[keyInvFlattening]}
			if keys[keyAngularUnits] != 0 && keys[keyAngularUnits] != 9102 {
				info.AngularUnit = 0 // not degrees: the spacing then needs --cell-size
			}
			return info
		}
	case 1:
		code := keys[keyProjected]
		if code != userDefined && code != 0 {
			c, _ = crs.FromEPSG(code)
			name = fmt.Sprintf("EPSG:%d", code)
		} else {
			c = k.userProjected()
		}
		if c == nil {
			u := linearUnits[keys[keyLinearUnits]]
			if name == "" {
				name = "user-defined"
			}
			return &CRSInfo{Name: name, Projected: true, LinearUnit: u.Metres}
		}
	default:
		return nil
	}
	info := &CRSInfo{WKT: c.WKT(), Name: c.Name, Geographic: c.Geographic(), Projected: !c.Geographic(),
		LinearUnit: c.Unit.Metres, AngularUnit: math.Pi / 180, SemiMajor: c.Datum.Ellipsoid.A, InvFlattening: c.Datum.Ellipsoid.InvF}
	if c.EPSG != 0 {
		info.Name = fmt.Sprintf("EPSG:%d", c.EPSG)
	}
	return info
}

// geographic returns the EPSG code of the GeoKeys' geographic CRS: the
// one named, or that of a user-defined one's datum when package crs
// knows it.
func (k *geoKeyDir) geographic() (int, bool) {
	if g := k.ints[keyGeographic]; g != userDefined && g != 0 {
		return g, true
	}
	return crs.GeographicOfDatum(k.ints[keyGeodeticDatum])
}

// userProjected builds a user-defined projected CRS from the GeoKeys
// (its name from their citation): Transverse Mercator (ProjCoordTrans 1)
// or Lambert Conformal Conic with two (8) or one (9) standard parallels,
// angles in degrees, on a datum and in a linear unit package crs knows;
// nil for any other.
func (k *geoKeyDir) userProjected() *crs.CRS {
	keys, dbl, txt := k.ints, k.dbl, k.txt
	geog, ok := k.geographic()
	u, uok := linearUnits[keys[keyLinearUnits]]
	if !ok || !uok || keys[keyAngularUnits] != 0 && keys[keyAngularUnits] != 9102 {
		return nil
	}
	base, err := crs.FromEPSG(geog)
	if err != nil {
		return nil
	}
	// Its name, as GDAL reads it: the PCS citation, else the GeoTIFF
	// citation, else "unnamed".
	name := "unnamed"
	if v := txt[keyPCSCitation]; v != "" {
		name = v
	} else if v := txt[keyCitation]; v != "" {
		name = v
	}
	c := crs.CRS{Name: name, GeogName: base.GeogName, GeogEPSG: base.GeogEPSG, Datum: base.Datum, Unit: u, PrimeMeridianBare: true}
	// The ellipsoid as GDAL writes it into the WKT: the keys' axis and
	// inverse flattening; for an ellipsoid other than WGS 84's, turned
	// into the semi-minor axis and back (through libgeotiff), which moves
	// the 12th digit (GRS 1980's 298.257222101 becomes 298.257222101004).
	e := &c.Datum.Ellipsoid
	if a, ok := dbl[keySemiMajor]; ok && a > 0 {
		e.A = a
	}
	if f, ok := dbl[keyInvFlattening]; ok && f > 0 {
		e.InvF = f
	}
	if e.InvF > 0 && e.EPSG != 7030 {
		e.InvF = e.A / (e.A - e.A*(1-1/e.InvF))
	}
	// Either the natural origin's keys or the false origin's, as writers use both.
	pick := func(a, b int) float64 {
		if v, ok := dbl[a]; ok {
			return v
		}
		return dbl[b]
	}
	switch m := keys[keyProjMethod]; m {
	case 1, 9: // Transverse Mercator, Lambert 1SP: a natural origin
		c.Method, c.Scale = crs.TransverseMercator, dbl[keyScaleNatOrigin]
		if m == 9 {
			c.Method = crs.LambertConic1SP
		}
		c.LatOrigin, c.CentralMeridian = pick(keyNatOriginLat, keyFalseOrigLat), pick(keyNatOriginLong, keyFalseOrigLong)
		c.FalseEasting, c.FalseNorthing = pick(keyFalseEasting, keyFalseOrigEast), pick(keyFalseNorthing, keyFalseOrigNorth)
	case 8: // Lambert 2SP: a false origin
		c.Method = crs.LambertConic2SP
		c.StdParallel1, c.StdParallel2 = dbl[keyStdParallel1], dbl[keyStdParallel2]
		c.LatOrigin, c.CentralMeridian = pick(keyFalseOrigLat, keyNatOriginLat), pick(keyFalseOrigLong, keyNatOriginLong)
		c.FalseEasting, c.FalseNorthing = pick(keyFalseOrigEast, keyFalseEasting), pick(keyFalseOrigNorth, keyFalseNorthing)
	default:
		return nil
	}
	p, err := crs.New(c)
	if err != nil {
		return nil
	}
	return p
}

// gdalMetadata reads the band's scale, offset and unit from GDAL's
// GDAL_METADATA tag (XML items with role scale, offset and unittype).
func (t *tiffImage) gdalMetadata(info *RasterInfo, sample int) error {
	s, err := t.ascii(tagGDALMetadata)
	if err != nil || s == "" {
		return err
	}
	var md struct {
		Items []struct {
			Name   string `xml:"name,attr"`
			Sample string `xml:"sample,attr"`
			Role   string `xml:"role,attr"`
			Value  string `xml:",chardata"`
		} `xml:"Item"`
	}
	if err := xml.Unmarshal([]byte(s), &md); err != nil {
		return nil // GDAL ignores metadata it cannot parse, and so do we
	}
	for _, it := range md.Items {
		if it.Sample != strconv.Itoa(sample) {
			continue
		}
		v := strings.TrimSpace(it.Value)
		switch it.Role {
		case "scale":
			if f, err := strconv.ParseFloat(v, 64); err == nil && f != 0 {
				info.Scale = f
			}
		case "offset":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				info.Offset = f
			}
		case "unittype":
			info.UnitType = v
		}
	}
	return nil
}

// readHGT reads an SRTM HGT tile without GDAL, as GDAL's SRTMHGT driver
// would (Driver.Read's signature): its south-west corner from the file
// name (N44W072.hgt), 1201² (3″) or 3601² (1″) big-endian int16 samples
// by its size, nodata −32768, the grid's corner cell centred on the
// tile's whole degrees, EPSG:4326.
func readHGT(path string, band int, plan func(RasterInfo) (Window, error)) (RasterInfo, []float32, error) {
	var info RasterInfo
	base := strings.ToUpper(filepath.Base(path))
	var lat, lon int
	var ns, ew byte
	if n, err := fmt.Sscanf(base, "%c%2d%c%3d.HGT", &ns, &lat, &ew, &lon); n != 4 || err != nil || (ns != 'N' && ns != 'S') || (ew != 'E' && ew != 'W') || lat > 90 || lon > 180 {
		return info, nil, fmt.Errorf("%w: an HGT file is named by its south-west corner, as N44W072.hgt; rename it so", ErrNotRaster)
	}
	if ns == 'S' {
		lat = -lat
	}
	if ew == 'W' {
		lon = -lon
	}
	f, size, err := openFile(path)
	if err != nil {
		return info, nil, err
	}
	defer f.Close()
	side := 0
	for _, s := range []int{1201, 3601, 1801} {
		if size == int64(s*s*2) {
			side = s
		}
	}
	if side == 0 {
		return info, nil, fmt.Errorf("%w: an HGT tile of %d bytes: want 1201² (3″) or 3601² (1″) 16-bit samples", ErrNotRaster, size)
	}
	if band > 1 {
		return info, nil, fmt.Errorf("band %d: an HGT tile has one band", band)
	}
	info = RasterInfo{Driver: "SRTMHGT", Width: side, Height: side, HasGeoTransform: true, Nodata: -32768, HasNodata: true,
		Scale: 1, UnitType: "m", DataType: "Int16"}
	info.GeoTransform = [6]float64{float64(lon) - 0.5/float64(side-1), 1 / float64(side-1), 0, float64(lat+1) + 0.5/float64(side-1), 0, -1 / float64(side-1)}
	c, err := crs.FromEPSG(4326)
	if err != nil {
		return info, nil, err
	}
	info.CRS = &CRSInfo{WKT: c.WKT(), Name: "EPSG:4326", Geographic: true, AngularUnit: math.Pi / 180, SemiMajor: c.Datum.Ellipsoid.A, InvFlattening: c.Datum.Ellipsoid.InvF}
	win, err := plan(info)
	if err != nil {
		return info, nil, err
	}
	data := make([]float32, win.Width*win.Height)
	row := make([]byte, 2*win.Width)
	for r := range win.Height {
		if _, err := f.ReadAt(row, int64(((win.Row+r)*side+win.Col)*2)); err != nil {
			return info, nil, err
		}
		for c := range win.Width {
			data[r*win.Width+c] = float32(int16(uint16(row[2*c])<<8 | uint16(row[2*c+1])))
		}
	}
	return info, data, nil
}
