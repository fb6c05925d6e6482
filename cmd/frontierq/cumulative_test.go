package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/fault"
)

// TestCumulative: the counts of `frontierq cumulative` equal, cell by cell,
// the number of observers whose `frontierq pvs` export marks the cell 255
// or 128; the same observers given as cells, map x,y, lon/lat, GeoJSON and
// GeoPackage count alike; any and all follow from the counts.
func TestCumulative(t *testing.T) {
	store := testStore(t)
	dir := t.TempDir()
	s, err := compress.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref := storeRef(s)
	obs := [][2]int{{2, 2}, {20, 20}, {45, 37}, {10, 30}, {20, 20}, {47, 0}}
	want := make([]int, s.Width*s.Height)
	for i, o := range obs {
		out := filepath.Join(dir, fmt.Sprintf("p%d.tif", i))
		if _, e, code := runCmd("pvs", store, "--at", fmt.Sprintf("%d,%d", o[0], o[1]), "-o", out); code != 0 {
			t.Fatal(e)
		}
		g, err := heightmap.Load(out, heightmap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range g.Elev {
			if v != 0 {
				want[j]++
			}
		}
	}
	var cells, xy, ll strings.Builder
	cells.WriteString("name,Col,Row\n")
	xy.WriteString("x,y\n")
	ll.WriteString("lon,lat\n")
	var feats []string
	for _, o := range obs {
		fmt.Fprintf(&cells, "o,%d,%d\n", o[0], o[1])
		x, y, err := ref.CellToMap(o[0], o[1])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&xy, "%.3f,%.3f\n", x, y)
		lon, lat, err := ref.MapToLonLat(x, y)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&ll, "%.8f,%.8f\n", lon, lat)
		feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[%.8f,%.8f]}}`, lon, lat))
	}
	// One observer off the grid in each file: skipped and counted.
	cells.WriteString("o,48,3\n")
	xy.WriteString("1e7,1e7\n")
	ll.WriteString("-60,40\n")
	feats = append(feats, `{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-60,40]}}`)
	inputs := map[string]string{"cells.csv": cells.String(), "xy.csv": xy.String(), "ll.csv": ll.String(),
		"o.geojson": `{"type":"FeatureCollection","features":[` + strings.Join(feats, ",") + `]}`}
	names := []string{"cells.csv", "xy.csv", "ll.csv", "o.geojson"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(inputs[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The same points as a GeoPackage, through --geojson's writer's driver.
	if out, err := runOgr(dir, "o.gpkg", "o.geojson"); err != nil {
		t.Fatalf("ogr2ogr: %v %s", err, out)
	}
	// And in web Mercator, which the command reprojects.
	if out, err := exec.Command("ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:3857", filepath.Join(dir, "o-3857.geojson"), filepath.Join(dir, "o.geojson")).CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v %s", err, out)
	}
	names = append(names, "o.gpkg", "o-3857.geojson")
	for _, n := range names {
		out := filepath.Join(dir, n+".tif")
		o, e, code := runCmd("cumulative", store, "--observers", filepath.Join(dir, n), "-o", out, "--json")
		var m map[string]any
		if code != 0 || json.Unmarshal([]byte(o), &m) != nil || m["observers"].(float64) != float64(len(obs)) || m["skipped_off_grid"].(float64) != 1 ||
			!strings.Contains(e, fmt.Sprintf("1 of %d observers skipped, off the grid", len(obs)+1)) {
			t.Fatalf("%s: exit %d: %s %s", n, code, o, e)
		}
		g, err := heightmap.Load(out, heightmap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range g.Elev {
			if int(v) != want[j] {
				t.Fatalf("%s: cell %d,%d counted %v, want %d", n, j%s.Width, j/s.Width, v, want[j])
			}
		}
	}
	for _, mode := range []string{"any", "all"} {
		out := filepath.Join(dir, mode+".tif")
		if _, e, code := runCmd("cumulative", store, "--observers", filepath.Join(dir, "cells.csv"), "-o", out, "--mode", mode); code != 0 {
			t.Fatal(e)
		}
		g, err := heightmap.Load(out, heightmap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range g.Elev {
			if in := mode == "any" && want[j] > 0 || mode == "all" && want[j] == len(obs); in != (v == 255) {
				t.Fatalf("--mode %s: cell %d is %v with a count of %d", mode, j, v, want[j])
			}
		}
	}
}

// runOgr converts a vector file with ogr2ogr, when it is installed.
func runOgr(dir, dst, src string) ([]byte, error) {
	cmd := exec.Command("ogr2ogr", "-f", "GPKG", dst, src)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// TestCumulativeBadInput: observers files with a bad row are refused in one
// line naming the line; usage mistakes exit 2 and write nothing.
func TestCumulativeBadInput(t *testing.T) {
	store := testStore(t)
	dir := t.TempDir()
	cases := []struct {
		name, text string
		args       []string
		code       int
		msg        string
	}{
		{"no header", "3,4\n", nil, 1, "line 1: header"},
		{"bad number", "col,row\n1,2\n3,x\n", nil, 1, "line 3: \"3\",\"x\" are not two numbers"},
		{"all outside", "col,row\n48,2\n\n-1,2\n", nil, 1, "no observers on the grid (2 off it; the first: line 2: cell 48,2 is outside the grid (48×40 cells))"},
		{"fraction", "col,row\n1.5,2\n", nil, 1, "line 2: cell 1.5,2"},
		{"short row", "a,col,row\n1,2,3\n4\n", nil, 1, "line 3: 1 fields"},
		{"empty", "", nil, 1, "is empty"},
		{"only header", "lon,lat\n", nil, 1, "holds no observers"},
		{"far away", "x,y\n1e9,1e9\n", nil, 1, "no observers on the grid (1 off it; the first: line 2: map point"},
		{"lonlat far away", "lon,lat\n10,10\n", nil, 1, "line 2: lon/lat 10,10 is outside the grid"},
		{"long line", "col,row\n1,2\n" + strings.Repeat("7", 100<<10) + ",2\n", nil, 1, "line 3 is longer than 65536 bytes"},
		{"bad mode", "col,row\n1,2\n", []string{"--mode", "some"}, 2, "--mode \"some\""},
	}
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".csv")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.tif")
		_, e, code := runCmd(append([]string{"cumulative", store, "--observers", path, "-o", out}, c.args...)...)
		if code != c.code || !strings.Contains(e, c.msg) || strings.Count(strings.TrimSpace(e), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want exit %d naming %q", c.name, code, e, c.code, c.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", c.name, out)
		}
	}
	poly := filepath.Join(dir, "poly.geojson")
	os.WriteFile(poly, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}},{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}`), 0o644)
	if _, e, code := runCmd("cumulative", store, "--observers", poly, "-o", filepath.Join(dir, "p.tif")); code != 1 || !strings.Contains(e, "feature 1 is not a point") {
		t.Errorf("a line among points: exit %d, %q", code, e)
	}
}

// TestCumulativeStoreCut: the store's file cut while its PVSs are added
// gives an error wrapping fault.ErrFault, where the command died of
// SIGBUS; rewritten in place with other bytes (its own shifted, as `cp
// other.pvs s.pvs` does), it gives counts or an error, never a panic.
func TestCumulativeStoreCut(t *testing.T) {
	b, err := os.ReadFile(testStore(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.pvs")
	for _, cut := range []bool{true, false} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := compress.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if cut {
			err = os.Truncate(path, 4096)
		} else {
			err = os.WriteFile(path, append(make([]byte, 24), b[:len(b)-24]...), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		var cells [][2]int
		for r := 0; r < s.Height; r += 3 {
			for c := 0; c < s.Width; c += 3 {
				cells = append(cells, [2]int{c, r})
			}
		}
		_, err = cumulativeCounts(s, cells)
		if cut && !errors.Is(err, fault.ErrFault) {
			t.Errorf("cumulative over a cut store: %v, want fault.ErrFault", err)
		}
		if !cut {
			t.Logf("cumulative over a store rewritten in place: %v", err)
		}
		s.Close()
	}
}
