package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/inputfile"
	"github.com/frontiersets/frontiersets/viewshed"
)

// maxObservers bounds an observers file (a cumulative viewshed of ten
// million observers takes minutes; more is a mistake or an attack).
const maxObservers = 10_000_000

// cumulativeCmd is `frontierq cumulative`: how many observers may see each
// cell, from their stored PVSs.
func cumulativeCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "cumulative STORE --observers FILE -o OUT.tif", Short: "Count, for every cell, the observers whose stored PVS may see it (a cumulative viewshed)",
		Long: `Count, for every cell, the observers whose stored PVS may see it (a
cumulative viewshed). Each observer's viewshed is its stored PVS: cells
marked visible (255 in frontierq pvs: seen, or possibly seen where the
cap dropped hidden cells) count, hidden ones
do not. A count is an upper bound of the observers that see a cell under the
store's visibility model; a cell no observer counts is seen by none.

Observers come from a CSV file with a header naming its columns — col,row
(cells), x,y (map coordinates in the store's CRS) or lon,lat (degrees, WGS
84) — or from a layer of points GDAL reads (GeoPackage, GeoJSON, …) in the
store's CRS, in longitude and latitude or in another CRS (reprojected).
Observers off the grid are skipped and counted.`,
		Args: cli.Args("STORE")}
	fs := c.Flags()
	obs := fs.String("observers", "", "observers `file`: CSV (col,row / x,y / lon,lat header), GeoPackage or GeoJSON points")
	out := fs.StringP("output", "o", "", "output GeoTIFF `path` on the store's grid")
	mode := fs.String("mode", "count", "`mode`: count (UInt32 observers per cell), any (255 where at least one observer may see the cell, else 0) or all (255 where every observer may)")
	asJSON := cli.JSONFlag(fs, "the counts")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *obs == "" || *out == "" {
			return cli.Usagef("cumulative needs --observers FILE and -o OUT.tif")
		}
		if *mode != "count" && *mode != "any" && *mode != "all" {
			return cli.Usagef("--mode %q: want count, any or all", *mode)
		}
		if err := cli.CheckOutputs([]cli.File{{Flag: "STORE", Path: pos[0]}, {Flag: "--observers", Path: *obs}}, []cli.File{{Flag: "-o", Path: *out}}); err != nil {
			return err
		}
		s, _, err := bake.OpenGrower(pos[0])
		if err != nil {
			return err
		}
		cells, off, err := readObservers(*obs, s)
		if err != nil {
			return err
		}
		if off.n > 0 {
			fmt.Fprintf(stderr, "frontierq: %d of %d observers skipped, off the grid (the first: %s)\n", off.n, off.n+len(cells), off.first)
		}
		counts, err := cumulativeCounts(s, cells)
		if err != nil {
			return err
		}
		seen, most := 0, uint32(0)
		for _, v := range counts {
			if v > 0 {
				seen++
			}
			most = max(most, v)
		}
		ref := storeRef(s)
		if *mode == "count" {
			err = gdal.WriteCounts(*out, ref, s.Width, s.Height, counts)
		} else {
			mask := make([]byte, len(counts))
			for i, v := range counts {
				if *mode == "any" && v > 0 || *mode == "all" && v == uint32(len(cells)) {
					mask[i] = pvsVisible
				}
			}
			err = gdal.WriteMask(*out, ref, s.Width, s.Height, mask, pvsStyle)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return cli.WriteJSON(stdout, map[string]any{"wrote": *out, "mode": *mode, "observers": len(cells), "skipped_off_grid": off.n,
				"cells": len(counts), "seen_by_any": seen, "most_observers": most})
		}
		fmt.Fprintf(stdout, "wrote %s (%s): %d observers; %d of %d cells may be seen by at least one, by %d at most\n",
			*out, *mode, len(cells), seen, len(counts), most)
		return nil
	}
	return c
}

// cumulativeCounts adds the stored PVS of every observer cell, on every
// core, and returns the counts row-major.
func cumulativeCounts(s *compress.Store, cells [][2]int) ([]uint32, error) {
	c := viewshed.NewCumulative(s.Hierarchy.G)
	if err := c.AddCells(s.Hierarchy, cells, runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	return c.Counts(nil), nil
}

// offGrid counts the observers skipped for lying off the grid, and names
// the first.
type offGrid struct {
	n     int
	first string
}

// add counts err, an observer's error, when it places the observer off
// the grid (heightmap.ErrOutside), naming it by where (a line, a
// feature), and reports whether it did; other errors are the caller's.
func (o *offGrid) add(where string, err error) bool {
	if !errors.Is(err, heightmap.ErrOutside) {
		return false
	}
	if o.n == 0 {
		o.first = where + ": " + err.Error()
	}
	o.n++
	return true
}

// readObservers reads an observers file into cells of store s: a CSV file
// by its header, anything else through GDAL as a layer of points (in the
// store's CRS, lon/lat, or another CRS, reprojected). Observers off the
// grid are skipped and counted in off. Errors name the file and the line
// (CSV) or feature (from 0) at fault, and a file of no observers on the
// grid.
func readObservers(path string, s *compress.Store) (cells [][2]int, off offGrid, err error) {
	ref := storeRef(s)
	if err := inputfile.Check(path); err != nil {
		return nil, off, fmt.Errorf("%s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		f, err := os.Open(path)
		if err != nil {
			return nil, off, err
		}
		defer f.Close()
		cells, err := readObserversCSV(f, ref, s, &off)
		if err != nil {
			return nil, off, fmt.Errorf("%s %w", path, err)
		}
		return cells, off, nil
	}
	pts, err := gdal.ReadPoints(path, maxObservers)
	if err != nil {
		return nil, off, err
	}
	lonlat := pts.Geographic
	other := pts.CRS != "" && !lonlat && ref.CRS != "" && !gdal.SameCRS(pts.CRS, ref.CRS)
	cells = make([][2]int, 0, len(pts.X))
	for i := range pts.X {
		x, y := pts.X[i], pts.Y[i]
		if other { // through lon/lat into the store's CRS
			if x, y, err = (heightmap.Georef{CRS: pts.CRS}).MapToLonLat(x, y); err != nil {
				return nil, off, fmt.Errorf("%s feature %d: %w", path, i, err)
			}
		}
		c, err := observerCell(ref, s, x, y, lonlat || other)
		if off.add(fmt.Sprintf("feature %d", i), err) {
			continue
		}
		if err != nil {
			return nil, off, fmt.Errorf("%s feature %d: %w", path, i, err)
		}
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		return nil, off, fmt.Errorf("%s: %s", path, noObservers(off))
	}
	return cells, off, nil
}

// noObservers says why a file gave no observers.
func noObservers(off offGrid) string {
	if off.n > 0 {
		return fmt.Sprintf("no observers on the grid (%d off it; the first: %s)", off.n, off.first)
	}
	return "no observers"
}

// maxCSVLine bounds an observers file's lines, in bytes: one observer a
// line needs a few dozen, and csv would hold a line of any length in
// memory (a 200 MB line took 1.9 GB).
const maxCSVLine = 64 << 10

// lineTooLong is lineLimit's error.
type lineTooLong struct{ line, max int }

func (e *lineTooLong) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes: give one observer a line", e.line, e.max)
}

// lineLimit reads r, failing with *lineTooLong at the first line longer
// than max bytes.
type lineLimit struct {
	r       io.Reader
	max     int
	n, line int // bytes of the current line so far; lines ended
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.n, l.line = 0, l.line+1
		} else if l.n++; l.n > l.max {
			return i, &lineTooLong{l.line + 1, l.max}
		}
	}
	return n, err
}

// readObserversCSV reads observers from CSV text whose header names the
// columns col,row or x,y or lon,lat (any case, other columns ignored).
// Errors start with "line N:" (the file's name is the caller's).
func readObserversCSV(r io.Reader, ref heightmap.Georef, s *compress.Store, off *offGrid) ([][2]int, error) {
	cr := csv.NewReader(&lineLimit{r: bufio.NewReader(r), max: maxCSVLine})
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("is empty: give a header (col,row or x,y or lon,lat) and one observer a line")
	}
	if err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	idx := map[string]int{}
	for i, h := range head {
		idx[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	var kind string
	var ia, ib int
	for _, k := range [][3]string{{"col", "row", "cell"}, {"x", "y", "map"}, {"lon", "lat", "lonlat"}, {"longitude", "latitude", "lonlat"}} {
		a, okA := idx[k[0]]
		b, okB := idx[k[1]]
		if okA && okB {
			kind, ia, ib = k[2], a, b
			break
		}
	}
	if kind == "" {
		return nil, fmt.Errorf("line 1: header %q names no columns col,row or x,y or lon,lat", strings.Join(head, ","))
	}
	var cells [][2]int
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var long *lineTooLong
		if errors.As(err, &long) {
			return nil, long
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if max(ia, ib) >= len(rec) {
			return nil, fmt.Errorf("line %d: %d fields, the header has %d", line, len(rec), len(head))
		}
		a, errA := strconv.ParseFloat(strings.TrimSpace(rec[ia]), 64)
		b, errB := strconv.ParseFloat(strings.TrimSpace(rec[ib]), 64)
		if errA != nil || errB != nil || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("line %d: %q,%q are not two numbers", line, clip(rec[ia]), clip(rec[ib]))
		}
		if len(cells) == maxObservers {
			return nil, fmt.Errorf("line %d: more than %d observers", line, maxObservers)
		}
		var c [2]int
		if kind == "cell" {
			if a != math.Trunc(a) {
				return nil, fmt.Errorf("line %d: cell %s,%s is not a cell: give whole numbers", line, clip(rec[ia]), clip(rec[ib]))
			}
			if b != math.Trunc(b) || a < 0 || b < 0 || a >= float64(s.Width) || b >= float64(s.Height) {
				err = fmt.Errorf("cell %s,%s is not a cell: give whole numbers", clip(rec[ia]), clip(rec[ib]))
				if b == math.Trunc(b) {
					err = fmt.Errorf("cell %s,%s is %w (%d×%d cells)", clip(rec[ia]), clip(rec[ib]), heightmap.ErrOutside, s.Width, s.Height)
				}
			}
			c = [2]int{int(a), int(b)}
		} else {
			c, err = observerCell(ref, s, a, b, kind == "lonlat")
		}
		if off.add(fmt.Sprintf("line %d", line), err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		cells = append(cells, c)
	}
	if len(cells) == 0 && off.n > 0 {
		return nil, errors.New(noObservers(*off))
	}
	if len(cells) == 0 {
		return nil, errors.New("holds no observers: give one a line under the header")
	}
	return cells, nil
}

// observerCell places a point given in map coordinates of the store's CRS,
// or in lon/lat degrees, on the store's grid. A point off the grid is an
// error wrapping heightmap.ErrOutside, in the units it was given in.
func observerCell(ref heightmap.Georef, s *compress.Store, a, b float64, lonlat bool) ([2]int, error) {
	if !lonlat {
		col, row, err := ref.MapToCell(a, b, s.Width, s.Height)
		return [2]int{col, row}, err
	}
	if !ref.HasGeoTransform {
		return [2]int{}, heightmap.ErrNoGeoref
	}
	x, y, err := ref.LonLatToMap(a, b)
	if err == nil {
		var col, row int
		if col, row, err = ref.MapToCell(x, y, s.Width, s.Height); err == nil {
			return [2]int{col, row}, nil
		}
	}
	if errors.Is(err, heightmap.ErrOutside) {
		return [2]int{}, fmt.Errorf("lon/lat %g,%g is %w", a, b, heightmap.ErrOutside)
	}
	return [2]int{}, err
}

// clip shortens a CSV field for an error message to at most 24 characters.
func clip(s string) string {
	if r := []rune(s); len(r) > 24 {
		return string(r[:24]) + "…"
	}
	return s
}
