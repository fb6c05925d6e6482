package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsNameTheirCause: a non-finite --engine-origin is blamed on
// itself (it blamed --engine "unity"); viewshed takes --engine for
// --at-world (it had none, so --at-world always failed) and says so when
// it is missing; lon/lat bounds are printed as a user must give them
// across the antimeridian (they read -179.06 to 178.98, the whole globe
// but the grid) and near a pole (lon -180 to 90 at one latitude).
func TestErrorsNameTheirCause(t *testing.T) {
	dir := t.TempDir()
	raw := "../../data/demo-unity.raw"
	flags := []string{"--cell-size", "80", "--height-range", "0,2000"}
	v := filepath.Join(dir, "v.tif")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a NaN origin", append([]string{"bake", raw, "--engine", "unity", "--engine-origin", "nan,0", "--nodes", "20", "-o", filepath.Join(dir, "s.pvs")}, flags...),
			2, `--engine-origin "nan,0": want a world position A,B, two finite numbers`},
		{"an origin without an engine", append([]string{"bake", raw, "--engine-origin", "5,0", "--nodes", "20", "-o", filepath.Join(dir, "s.pvs")}, flags...),
			2, "give --engine unity, unreal or godot"},
		{"--at-world without --engine", append([]string{"viewshed", raw, "--at-world", "100,100", "-o", v}, flags...),
			2, "--at-world takes a world position: place the heightmap in the engine's world with --engine"},
		{"--at-world with --engine", append([]string{"viewshed", raw, "--engine", "unity", "--engine-origin", "-10200,500", "--at-world", "-1960,5620", "-o", v}, flags...),
			0, ""},
	} {
		out, errOut, code := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if code == 0 && !strings.Contains(out, "observer (103,64)") { // sample (103, 64): x −10200 + 80·103, z 500 + 80·64
			t.Errorf("%s: %s", tc.name, out)
		}
	}
	if _, err := exec.LookPath("gdal_create"); err != nil {
		t.Skip("no gdal_create (gdal-bin)")
	}
	// UTM 60N at 63° N reaching past 180°; polar stereographic around the
	// north pole.
	am, pole := filepath.Join(dir, "am.tif"), filepath.Join(dir, "pole.tif")
	for _, c := range [][]string{
		{"-outsize", "100", "20", "-a_srs", "EPSG:32660", "-a_ullr", "600000", "7000000", "700000", "6980000", am},
		{"-outsize", "40", "40", "-a_srs", "EPSG:3413", "-a_ullr", "-100000", "100000", "100000", "-100000", pole},
	} {
		if out, err := exec.Command("gdal_create", append([]string{"-q", "-of", "GTiff", "-bands", "1", "-ot", "Float32", "-burn", "100"}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("gdal_create: %v %s", err, out)
		}
	}
	for _, tc := range []struct{ dem, at, want string }{
		{am, "0,0", "want lon 178.97016 to -179.03965 across the antimeridian, lat 62.89492 to 63.11549"},
		{pole, "0,0", "want lat 88.69455 to 90.00000, any lon (the grid holds the north pole)"},
	} {
		_, errOut, code := runCmd("viewshed", tc.dem, "--at-lonlat", tc.at, "-o", v)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s --at-lonlat %s: exit %d: %s", filepath.Base(tc.dem), tc.at, code, errOut)
		}
	}
	// And positions across the antimeridian land on the grid.
	for _, at := range []string{"179.5,63", "-179.5,63"} {
		if _, errOut, code := runCmd("viewshed", am, "--at-lonlat", at, "-o", v); code != 0 {
			t.Errorf("--at-lonlat %s: exit %d: %s", at, code, errOut)
		}
	}
}
