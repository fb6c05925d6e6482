package cli

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/heightmap"
)

// PointFlags locate one player or observer on a grid in one of three ways:
// a cell (--NAME col,row), map coordinates in the grid's CRS (--NAME-xy
// x,y, e.g. metres east and north in UTM) or longitude and latitude in
// degrees on WGS 84 (--NAME-lonlat lon,lat, through the grid's lon/lat
// lattice, or GDAL for a store from before stores recorded one).
type PointFlags struct {
	name                    string
	cell, xy, lonlat, world string
}

// Register adds --NAME, --NAME-xy and --NAME-lonlat to fs; what names the
// point in the help ("player A's").
func (p *PointFlags) Register(fs *pflag.FlagSet, name, what string) {
	p.name = name
	fs.StringVar(&p.cell, name, "", what+" cell `col,row` on the grid (0-based, from the top-left; fractional for a position, e.g. 12.37,40.8: the cell whose square holds it)")
	fs.StringVar(&p.xy, name+"-xy", "", what+" map coordinates `x,y` in the grid's CRS (instead of a cell)")
	fs.StringVar(&p.lonlat, name+"-lonlat", "", what+" `lon,lat` in degrees on WGS 84 (instead of a cell)")
	fs.StringVar(&p.world, name+"-world", "", what+" world position `A,B` in the game engine's units and axes the store was baked with (pvsbake bake --engine: Unity x,z metres, Unreal X,Y centimetres; instead of a cell)")
}

// flag names one of the point's flags: --NAME with the suffix.
func (p *PointFlags) flag(suffix string) string { return "--" + p.name + suffix }

// Given reports whether any of the point's flags was given.
func (p *PointFlags) Given() bool {
	return p.cell != "" || p.xy != "" || p.lonlat != "" || p.world != ""
}

// WorldGiven reports whether the point was given as a world position
// (--NAME-world).
func (p *PointFlags) WorldGiven() bool { return p.world != "" }

// Flags names the point's flags for messages: "--a, --a-xy, --a-lonlat or
// --a-world".
func (p *PointFlags) Flags() string {
	return p.flag("") + ", " + p.flag("-xy") + ", " + p.flag("-lonlat") + " or " + p.flag("-world")
}

// Cell returns the cell the flags locate on a width×height grid with
// georeferencing ref. Errors: *UsageError for a malformed value or more
// than one form; otherwise one line naming the flag, its value and the
// grid's valid range (cells outside it, a grid without a geotransform for
// --NAME-xy, without a CRS for --NAME-lonlat).
func (p *PointFlags) Cell(ref heightmap.Georef, width, height int) (col, row int, err error) {
	n := 0
	for _, v := range []string{p.cell, p.xy, p.lonlat, p.world} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return 0, 0, Usagef("give exactly one of %s", p.Flags())
	}
	switch {
	case p.cell != "":
		col, row, err = ParseCell(p.name, p.cell)
		if err != nil {
			return 0, 0, err
		}
		if col < 0 || row < 0 || col >= width || row >= height {
			return 0, 0, fmt.Errorf("%s %s is outside the %d×%d grid: want col 0 to %d, row 0 to %d", p.flag(""), p.cell, width, height, width-1, height-1)
		}
		return col, row, nil
	case p.xy != "":
		x, y, err := parsePair(p.flag("-xy"), p.xy, "x,y in the grid's CRS units")
		if err != nil {
			return 0, 0, err
		}
		col, row, err = ref.MapToCell(x, y, width, height)
		if err != nil {
			return 0, 0, fmt.Errorf("%s %s: %w", p.flag("-xy"), p.xy, err)
		}
		return col, row, nil
	case p.world != "":
		a, b, err := parsePair(p.flag("-world"), p.world, "A,B in the engine's units")
		if err != nil {
			return 0, 0, err
		}
		x, y, err := ref.WorldToPosition(a, b, width, height)
		if err != nil {
			return 0, 0, fmt.Errorf("%s %s: %w", p.flag("-world"), p.world, err)
		}
		return int(math.Floor(x + 0.5)), int(math.Floor(y + 0.5)), nil
	}
	lon, lat, err := parsePair(p.flag("-lonlat"), p.lonlat, "lon,lat in degrees")
	if err != nil {
		return 0, 0, err
	}
	x, y, err := ref.LonLatToMap(lon, lat)
	if err == nil && !ref.HasGeoTransform {
		err = heightmap.ErrNoGeoref
	}
	if errors.Is(err, heightmap.ErrOutside) {
		return 0, 0, fmt.Errorf("%s %s is outside the grid: %s", p.flag("-lonlat"), p.lonlat, lonLatRange(ref, width, height))
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %w", p.flag("-lonlat"), p.lonlat, err)
	}
	col, row, err = ref.MapToCell(x, y, width, height)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s is outside the grid: %s", p.flag("-lonlat"), p.lonlat, lonLatRange(ref, width, height))
	}
	return col, row, nil
}

// lonLatRange describes a grid's extent in lon/lat: the range of its
// edges, sampled (a projected grid's extreme latitudes may lie between its
// corners), the longitudes as the shortest arc holding them all (across
// the antimeridian where that is shorter: "lon 179.5 to -179.5"), and a
// grid holding a pole as reaching it at every longitude.
func lonLatRange(ref heightmap.Georef, width, height int) string {
	const steps = 64 // points per edge
	la0, la1 := math.Inf(1), math.Inf(-1)
	lons := make([]float64, 0, 4*steps)
	gt := ref.GeoTransform
	for e := range 4 {
		for i := range steps {
			t := float64(i) / steps
			c := [4][2]float64{{t, 0}, {1, t}, {1 - t, 1}, {0, 1 - t}}[e] // clockwise from the top-left
			u, v := c[0]*float64(width), c[1]*float64(height)
			lon, lat, err := ref.MapToLonLat(gt[0]+u*gt[1]+v*gt[2], gt[3]+u*gt[4]+v*gt[5])
			if err != nil {
				return "its edges have no lon/lat"
			}
			lons = append(lons, lon)
			la0, la1 = min(la0, lat), max(la1, lat)
		}
	}
	for _, pole := range []float64{90, -90} {
		x, y, err := ref.LonLatToMap(0, pole)
		if err != nil {
			continue
		}
		if _, _, err := ref.MapToCell(x, y, width, height); err == nil {
			name := "north"
			if pole < 0 {
				name, la0 = "south", -90
			} else {
				la1 = 90
			}
			return fmt.Sprintf("want lat %.5f to %.5f, any lon (the grid holds the %s pole)", la0, la1, name)
		}
	}
	// The shortest arc: all longitudes but the widest gap between two.
	slices.Sort(lons)
	lo, hi := lons[0], lons[len(lons)-1]
	gap := lo + 360 - hi // the gap across the antimeridian
	across := false
	for i := 1; i < len(lons); i++ {
		if d := lons[i] - lons[i-1]; d > gap {
			gap, lo, hi, across = d, lons[i], lons[i-1], true
		}
	}
	if across {
		return fmt.Sprintf("want lon %.5f to %.5f across the antimeridian, lat %.5f to %.5f", lo, hi, la0, la1)
	}
	return fmt.Sprintf("want lon %.5f to %.5f, lat %.5f to %.5f", lo, hi, la0, la1)
}

// parsePair parses "a,b" as two finite numbers.
func parsePair(flag, s, want string) (a, b float64, err error) {
	as, bs, ok := strings.Cut(s, ",")
	if ok {
		a, err = strconv.ParseFloat(strings.TrimSpace(as), 64)
		if err == nil {
			b, err = strconv.ParseFloat(strings.TrimSpace(bs), 64)
		}
	}
	if !ok || err != nil || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return 0, 0, Usagef("%s %q: want %s", flag, s, want)
	}
	return a, b, nil
}

// Location is a cell with its map coordinates, lon/lat and elevation, as
// commands report it in JSON; the map and lon/lat fields are absent when
// the grid has no geotransform or no CRS.
type Location struct {
	Col int      `json:"col"`
	Row int      `json:"row"`
	X   *float64 `json:"x,omitempty"` // cell centre, CRS units
	Y   *float64 `json:"y,omitempty"`
	Lon *float64 `json:"lon,omitempty"` // degrees, WGS 84
	Lat *float64 `json:"lat,omitempty"`
	// World is the cell centre's world position on a store baked with an
	// engine frame (pvsbake bake --engine), in the engine's units and axes.
	World      *[2]float64 `json:"world,omitempty"`
	ElevationM float64     `json:"elevation_m"`
}

// Locate fills a Location for cell (col, row) of a grid with georeferencing
// ref and elevations elev (row-major, metres).
func Locate(ref heightmap.Georef, width int, elev []float32, col, row int) Location {
	l := Location{Col: col, Row: row, ElevationM: round3(float64(elev[row*width+col]))}
	if f := ref.Engine; f != nil {
		a, b := f.World(float64(col), float64(row))
		l.World = &[2]float64{round6(a), round6(b)}
	}
	x, y, err := ref.CellToMap(col, row)
	if err != nil {
		return l
	}
	l.X, l.Y = ptr(round6(x)), ptr(round6(y))
	if lon, lat, err := ref.MapToLonLat(x, y); err == nil {
		l.Lon, l.Lat = ptr(round8(lon)), ptr(round8(lat))
	}
	return l
}

func ptr(v float64) *float64 { return &v }

func round3(v float64) float64 { return math.Round(v*1e3) / 1e3 }
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
func round8(v float64) float64 { return math.Round(v*1e8) / 1e8 }
