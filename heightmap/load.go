package heightmap

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/frontiersets/frontiersets/internal/inputfile"
)

// Options controls how Load reads a DEM. The zero Options reads the whole
// raster with units taken from the file.
type Options struct {
	// Window to read, in cells of the source raster; zero means all of it.
	// Only the window's rows are read.
	Window Window
	// CellSize, in metres per cell, sets Dx = Dy. It is required in spirit
	// for rasters without a CRS (RAW files, plain PNGs, ESRI ASCII grids
	// without .prj); when given it overrides the spacing the CRS implies.
	CellSize float64
	// ZScale is metres per stored height unit. Zero means automatic: 1, or
	// the foot's length when the band's unit type says feet — but for a
	// 16-bit heightmap without georeferencing (RAW, a plain 16-bit PNG),
	// whose samples have no unit, it must be given, or HeightRange.
	ZScale float64
	// ZOffset is metres added to every height after ZScale.
	ZOffset float64
	// HeightRange, when Max > Min, maps a 16-bit heightmap's samples 0 to
	// 65535 onto Min to Max metres (a game engine's terrain height: Unity's
	// 0 to the terrain's height, Unreal's −256 to 256 m at Z scale 100):
	// ZScale = (Max − Min)/65535, ZOffset = Min.
	HeightRange [2]float64
	// RawWidth and RawHeight give the size of a headerless RAW file (.raw,
	// .r16); zero infers a square from the file size.
	RawWidth, RawHeight int
	// RawBigEndian reads RAW samples as big-endian; the default is
	// little-endian, as terrain editors export them.
	RawBigEndian bool
	// Band is the raster band to read, counted from 1. 0 reads the only
	// band; a raster of several bands is then refused with ErrBands,
	// listing them.
	Band int
	// Check, when not nil, is called with the grid about to be loaded —
	// size, window, spacing and georeferencing set, Elev still nil —
	// before any cell is allocated or read; its error aborts the load.
	// Commands guard their memory with it.
	Check func(g *Grid) error
}

// ErrNoScale is wrapped by Load's errors for a heightmap whose horizontal
// or vertical scale it would have to guess: a raster without
// georeferencing needs Options.CellSize, and a 16-bit one without
// georeferencing (a RAW file, a plain 16-bit PNG) also ZScale or
// HeightRange.
var ErrNoScale = errors.New("heightmap without a scale")

// Load reads a DEM into a Grid in metres.
//
// Horizontal spacing (Dx, Dy, metres): Options.CellSize when given; else for
// a projected CRS the pixel size times the CRS's linear unit (a 2 ft pixel is
// 0.6096 m); for a geographic CRS the length of the pixel's angular size on
// the CRS's ellipsoid at the window's centre latitude, separately along the
// parallel (Dx) and the meridian (Dy); with no CRS the pixel size is taken as
// metres and Spacing is SpacingAssumed, which callers should warn about.
//
// Heights: value × band scale + band offset, times ZScale. Nodata cells (the
// band's nodata value, NaN, ±Inf) are marked and filled (FillNodata).
//
// Files ending in .raw or .r16 are read as headerless unsigned 16-bit RAW
// heightmaps (see Options.RawWidth) — but through the driver when an ENVI
// header lies beside them (name.hdr), whose size, sample type, byte order
// and map info then apply —; everything else through the registered Driver
// (GDAL's, when the program imports heightmap/gdal). Without a driver,
// GeoTIFFs (.tif, .tiff: TIFFError for one that cannot be read), SRTM
// .hgt tiles and grayscale PNGs are read by this package's own readers,
// lon/lat placed through internal/crs; other formats give ErrNoGDAL.
//
// Errors wrap ErrNotRaster, ErrEmpty, ErrWindow or ErrAllNodata, or the
// operating system's or GDAL's message; they read "heightmap: <path>: ...".
func Load(path string, opt Options) (*Grid, error) {
	g, err := load(path, opt, registered())
	if err != nil {
		return nil, fmt.Errorf("heightmap: %s: %w", path, err)
	}
	g.Loaded = opt
	g.Loaded.Window, g.Loaded.Check = Window{}, nil
	return g, nil
}

// load is Load through driver d (no Read: the readers without GDAL).
func load(path string, opt Options, d Driver) (*Grid, error) {
	if opt.CellSize < 0 || math.IsNaN(opt.CellSize) || math.IsInf(opt.CellSize, 0) {
		return nil, fmt.Errorf("cell size %v m is not a positive length", opt.CellSize)
	}
	if opt.ZScale < 0 || math.IsNaN(opt.ZScale) || math.IsInf(opt.ZScale, 0) {
		return nil, fmt.Errorf("z scale %v is not a positive factor", opt.ZScale)
	}
	if r := opt.HeightRange; r != [2]float64{} {
		if !(r[1] > r[0]) || math.IsInf(r[0], 0) || math.IsInf(r[1], 0) || opt.ZScale != 0 || opt.ZOffset != 0 {
			return nil, fmt.Errorf("height range %g to %g m: want a finite range, low to high, and no z scale or offset besides", r[0], r[1])
		}
		opt.ZScale, opt.ZOffset = (r[1]-r[0])/65535, r[0]
	}
	if math.IsNaN(opt.ZOffset) || math.IsInf(opt.ZOffset, 0) {
		return nil, fmt.Errorf("z offset %v is not a finite number of metres", opt.ZOffset)
	}
	if _, err := os.Stat(path); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no such file")
		}
		return nil, err
	}
	if err := inputfile.Check(path); err != nil { // a pipe's open blocks
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(path))
	read := d.Read
	if ext == ".raw" || ext == ".r16" {
		hdr := enviHeader(path)
		if hdr == "" || read == nil {
			return loadRaw(path, opt)
		}
		// An ENVI header gives the size, sample type, byte order and
		// perhaps the georeferencing: the driver reads the file by it.
		if opt.RawWidth != 0 || opt.RawHeight != 0 || opt.RawBigEndian {
			return nil, fmt.Errorf("its ENVI header %s gives its size and byte order: drop --raw-size and --raw-big-endian", hdr)
		}
	}
	if read == nil {
		switch ext {
		case ".png":
			return loadPNG(path, opt)
		case ".tif", ".tiff", ".gtif":
			read = readGeoTIFF
		case ".hgt":
			read = readHGT
		default:
			return nil, ErrNoGDAL
		}
	}
	var g *Grid
	info, data, err := read(path, opt.Band, func(info RasterInfo) (Window, error) {
		win := opt.Window
		if win == (Window{}) {
			win = Window{Width: info.Width, Height: info.Height}
		}
		if err := win.check(info.Width, info.Height); err != nil {
			return win, err
		}
		g = &Grid{
			Width: win.Width, Height: win.Height,
			Source: path, Window: win, SourceSize: [2]int{info.Width, info.Height},
			Driver: info.Driver,
		}
		if info.HasGeoTransform {
			g.HasGeoTransform = true
			g.GeoTransform = windowGeoTransform(info.GeoTransform, win)
		}
		if info.CRS != nil {
			g.CRS = info.CRS.WKT
			g.CRSName = info.CRS.Name
		}
		if err := setSpacing(g, info, opt); err != nil {
			return win, err
		}
		if opt.Check != nil {
			if err := opt.Check(g); err != nil {
				return win, err
			}
		}
		if !info.HasGeoTransform {
			return win, needScales(opt, info.DataType == "UInt16" || info.DataType == "Int16")
		}
		return win, nil
	})
	if err != nil {
		return nil, err
	}
	g.Elev = data
	zscale := opt.ZScale
	if zscale == 0 {
		zscale = unitMetres(info.UnitType)
	}
	g.ZScale = zscale
	var ndv *float64
	if info.HasNodata {
		ndv = &info.Nodata
	}
	if err := finish(g, ndv, info.Scale*zscale, info.Offset*zscale+opt.ZOffset); err != nil {
		return nil, err
	}
	g.LonLat, g.NoLonLat = lonLatFor(g.Georef, g.Width, g.Height, d.transformer())
	if g.HasGeoTransform && g.CRS == "" && g.CRSName != "" {
		g.NoLonLat = "this build without GDAL does not know CRS " + g.CRSName
	}
	return g, nil
}

// lonLatFor returns the LonLatGrid of a width×height grid on ref, or nil
// and why when it has none: no CRS or geotransform (why is then ""), no
// lattice close enough, or a CRS that needs GDAL.
func lonLatFor(ref Georef, width, height int, tr transformFunc) (*LonLatGrid, string) {
	if ref.CRS == "" || !ref.HasGeoTransform {
		return nil, ""
	}
	ll, err := newLonLatGrid(ref, width, height, tr)
	if err != nil {
		return nil, strings.TrimPrefix(err.Error(), "heightmap: ")
	}
	return ll, ""
}

// enviHeader returns the ENVI header beside a RAW file (name.hdr or
// name.raw.hdr, first line "ENVI", as GDAL's ENVI driver looks for it),
// or "".
func enviHeader(path string) string {
	for _, h := range []string{strings.TrimSuffix(path, filepath.Ext(path)) + ".hdr", path + ".hdr"} {
		if inputfile.Check(h) != nil {
			continue
		}
		f, err := os.Open(h)
		if err != nil {
			continue
		}
		var head [5]byte
		n, _ := io.ReadFull(f, head[:])
		f.Close()
		if n == 5 && string(head[:4]) == "ENVI" && (head[4] == '\n' || head[4] == '\r' || head[4] == ' ') {
			return h
		}
	}
	return ""
}

// needScales refuses a heightmap without georeferencing whose scales opt
// does not give: its cell size always, and for 16-bit samples (which carry
// no unit) its vertical scale.
func needScales(opt Options, sixteenBit bool) error {
	missing := []string{}
	if opt.CellSize == 0 {
		missing = append(missing, "--cell-size (metres per cell)")
	}
	if sixteenBit && opt.ZScale == 0 {
		missing = append(missing, "--height-range MIN,MAX (the metres of samples 0 and 65535) or --z-scale (metres per sample unit)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: it has no georeferencing; give %s", ErrNoScale, strings.Join(missing, " and "))
	}
	return nil
}

// windowGeoTransform moves a geotransform's origin to the window's top-left.
func windowGeoTransform(gt [6]float64, w Window) [6]float64 {
	c, r := float64(w.Col), float64(w.Row)
	gt[0] += float64(c*gt[1]) + float64(r*gt[2])
	gt[3] += float64(c*gt[4]) + float64(r*gt[5])
	return gt
}

// setSpacing derives g.Dx, g.Dy (metres) as documented on Load.
func setSpacing(g *Grid, info RasterInfo, opt Options) error {
	gt := g.GeoTransform           // the window's
	px := math.Hypot(gt[1], gt[4]) // CRS units per column step
	py := math.Hypot(gt[2], gt[5]) // CRS units per row step
	switch {
	case opt.CellSize > 0:
		g.Dx, g.Dy, g.Spacing = opt.CellSize, opt.CellSize, SpacingCellSize
	case !info.HasGeoTransform:
		g.Dx, g.Dy, g.Spacing = 1, 1, SpacingAssumed
	case info.CRS != nil && info.CRS.Geographic:
		deg0 := info.CRS.AngularUnit * 180 / math.Pi // CRS units to degrees
		lat := (gt[3] + float64(g.Width)/2*gt[4] + float64(g.Height)/2*gt[5]) * deg0
		// Every corner on the globe, not only the centre (a window across
		// a pole would have cells of no size).
		for _, c := range [4][2]float64{{0, 0}, {float64(g.Width), 0}, {0, float64(g.Height)}, {float64(g.Width), float64(g.Height)}} {
			if l := (gt[3] + c[0]*gt[4] + c[1]*gt[5]) * deg0; !(math.Abs(l) <= 90) {
				return fmt.Errorf("geographic raster reaching latitude %.3f°, off the globe; read a window within ±90° (--window)", l)
			}
		}
		mx, my := metresPerDegree(lat, info.CRS.SemiMajor, info.CRS.InvFlattening)
		deg := info.CRS.AngularUnit * 180 / math.Pi
		g.Dx, g.Dy, g.Spacing = px*deg*mx, py*deg*my, SpacingGeographic
	case info.CRS != nil && info.CRS.Projected:
		g.Dx, g.Dy, g.Spacing = px*info.CRS.LinearUnit, py*info.CRS.LinearUnit, SpacingProjected
	default:
		g.Dx, g.Dy, g.Spacing = px, py, SpacingAssumed
	}
	if !(g.Dx > 0) || !(g.Dy > 0) || math.IsInf(g.Dx, 0) || math.IsInf(g.Dy, 0) {
		return fmt.Errorf("cell spacing %g × %g m is not positive; give --cell-size", g.Dx, g.Dy)
	}
	return nil
}

// metresPerDegree returns the length in metres of one degree of longitude
// (along the parallel) and of latitude (along the meridian) at latitude
// latDeg on the ellipsoid of semi-major axis a (metres) and inverse
// flattening invf (0 for a sphere). WGS 84 is used when a is not positive.
func metresPerDegree(latDeg, a, invf float64) (lon, lat float64) {
	if !(a > 0) {
		a, invf = 6378137, 298.257223563
	}
	e2 := 0.0
	if invf > 0 {
		f := 1 / invf
		e2 = f * (2 - f)
	}
	phi := latDeg * math.Pi / 180
	s := math.Sin(phi)
	w := math.Sqrt(1 - e2*s*s)
	n := a / w                      // prime vertical radius of curvature
	m := a * (1 - e2) / (w * w * w) // meridional radius of curvature
	return n * math.Cos(phi) * math.Pi / 180, m * math.Pi / 180
}

// unitMetres returns metres per unit for a band unit type GDAL reports; 1
// for metres, empty or unknown units.
func unitMetres(unit string) float64 {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "ft", "foot", "feet", "international foot":
		return 0.3048
	case "us survey foot", "ftus", "us-ft", "foot_us":
		return 1200.0 / 3937.0
	}
	return 1
}

// Heights no terrain has, in metres: below the deepest trench (10,935 m
// under sea level) and above the highest summit (8,849 m) with a margin.
// A cell outside is read as nodata (Grid.Implausible counts them): such
// values are undeclared nodata markers (−3.4e38, GDAL's usual one when the
// tag is missing) or broken samples, which would otherwise occlude
// everything or nothing.
const (
	MinElevation = -12000
	MaxElevation = 10000
)

// finish converts raw samples in g.Elev to metres (v·scale + offset), marks
// the nodata cells (value nodata when non-nil, NaN, ±Inf, or a height
// outside MinElevation to MaxElevation metres) and fills them.
func finish(g *Grid, nodata *float64, scale, offset float64) error {
	var ndv float32
	hasND := nodata != nil && !math.IsNaN(*nodata)
	if hasND {
		ndv = float32(*nodata)
	}
	count := 0
	for i, v := range g.Elev {
		if (hasND && v == ndv) || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			if g.Nodata == nil {
				g.Nodata = make([]bool, len(g.Elev))
			}
			g.Nodata[i] = true
			count++
			continue
		}
		z := float32(float64(float64(v)*scale) + offset)
		if math.IsNaN(float64(z)) {
			return fmt.Errorf("height %g × scale %g + offset %g is not a finite number of metres; check --z-scale", v, scale, offset)
		}
		if z < MinElevation || z > MaxElevation { // ±Inf too
			if g.Nodata == nil {
				g.Nodata = make([]bool, len(g.Elev))
			}
			g.Nodata[i] = true
			count++
			g.Implausible++
			continue
		}
		g.Elev[i] = z
	}
	g.NodataCount = count
	if count == len(g.Elev) {
		return ErrAllNodata
	}
	if count > 0 {
		FillNodata(g)
	}
	return nil
}
