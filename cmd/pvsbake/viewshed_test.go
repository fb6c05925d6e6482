package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
)

func TestViewshedCommand(t *testing.T) {
	dir := t.TempDir()
	out, png, hz := filepath.Join(dir, "v.tif"), filepath.Join(dir, "v.png"), filepath.Join(dir, "h.csv")
	stdout, errOut, code := runCmd("viewshed", "../../data/demo-hills.tif", "--window", "64,64,96,80", "--at", "40,30", "-o", out, "--png", png, "--horizon", hz, "--sectors", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "observer (40,30) sees") {
		t.Errorf("stdout: %s", stdout)
	}
	m, err := heightmap.Load(out, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 64, Row: 64, Width: 96, Height: 80}})
	if m.Width != 96 || m.Height != 80 || m.GeoTransform != src.GeoTransform || m.CRSName != src.CRSName {
		t.Errorf("mask %d×%d %v %s, want the window's grid %v %s", m.Width, m.Height, m.GeoTransform, m.CRSName, src.GeoTransform, src.CRSName)
	}
	vis, hid := 0, 0
	for _, v := range m.Elev {
		switch v {
		case 255:
			vis++
		case 0:
			hid++
		default:
			t.Fatalf("mask value %v, want 0 or 255", v)
		}
	}
	if m.Elev[30*96+40] != 255 || vis == 0 || hid == 0 {
		t.Errorf("observer cell %v, %d visible, %d hidden", m.Elev[30*96+40], vis, hid)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("png: %v", err)
	}
	csvText, err := os.ReadFile(hz)
	if lines := strings.Count(string(csvText), "\n"); err != nil || lines != 65 || !strings.HasPrefix(string(csvText), "azimuth_rad,elevation_rad,distance_m\n") {
		t.Errorf("horizon CSV: %v, %d lines", err, lines)
	}
}

func TestViewshedErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "v.tif")
	dem := "../../data/demo-hills.tif"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no --at", []string{"viewshed", dem, "-o", out}, 2, "needs the observer (--at, --at-xy, --at-lonlat or --at-world)"},
		{"bad --at", []string{"viewshed", dem, "--at", "3", "-o", out}, 2, "col,row"},
		{"outside", []string{"viewshed", dem, "--at", "256,3", "-o", out}, 1, "outside the 256×256 grid"},
		{"negative height", []string{"viewshed", dem, "--at", "3,3", "--target-height", "-1", "-o", out}, 2, "want 0 to 100000 m"},
		{"absurd height", []string{"viewshed", dem, "--at", "3,3", "--observer-height", "1e308", "-o", out}, 2, "1e+308 m"},
		{"few sectors", []string{"viewshed", dem, "--at", "3,3", "--sectors", "2", "-o", out}, 2, "sectors"},
		{"unwritable", []string{"viewshed", dem, "--at", "3,3", "-o", filepath.Join(dir, "no", "v.tif")}, 1, "v.tif"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 && tc.code == 1 {
				t.Errorf("exit %d (want %d), stderr:\n%s", code, tc.code, errOut)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run left an output file")
	}
}

func TestViewshedNodataObserver(t *testing.T) {
	p := filepath.Join(t.TempDir(), "holes.asc")
	os.WriteFile(p, []byte("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n1 2 3\n4 -9999 6\n"), 0o644)
	_, errOut, code := runCmd("viewshed", p, "--at", "1,1", "-o", filepath.Join(t.TempDir(), "v.tif"))
	if code != 1 || !strings.Contains(errOut, "nodata") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	// From a cell with data, the nodata cell is the file's nodata value,
	// neither visible (255) nor hidden (0).
	out := filepath.Join(t.TempDir(), "v.tif")
	if _, errOut, code := runCmd("viewshed", p, "--at", "0,0", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	g, err := heightmap.Load(out, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.NodataCount != 1 || !g.IsNodata(4) || g.Elev[0] != 255 {
		t.Errorf("the viewshed has %d nodata cells (cell (1,1): %v), the observer's cell %g", g.NodataCount, g.IsNodata(4), g.Elev[0])
	}
}
