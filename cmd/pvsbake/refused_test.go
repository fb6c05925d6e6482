package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRefusedBeforeBaking: a bake whose store no reader would open (an
// engine origin that the window moves past ±10¹² units, PVS cells over
// 1,000 km) and -o naming the --resume folder are refused before the bake,
// with a line naming the flag; before, the first two wrote stores that
// frontierq refused and the third failed at the commit after the whole
// bake.
func TestRefusedBeforeBaking(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.tif")
	if _, errOut, code := runCmd("synth", "--size", "16", "--cell-size", "1000000", "-o", huge); code != 0 {
		t.Fatal(errOut)
	}
	out := filepath.Join(dir, "x.pvs")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"an engine origin the window moves out of bounds",
			[]string{"bake", "../../data/demo-unity.raw", "--cell-size", "80", "--height-range", "0,2000", "--engine", "unity", "--engine-origin", "999999999000,0", "--window", "100,0,32,32", "--nodes", "20", "-o", out},
			2, "--engine-origin 999999999000,0: the grid's first cell lands at 1.000000007e+12,0"},
		{"PVS cells of 2,000 km", []string{"bake", huge, "--pvs-cell", "2000000", "--nodes", "20", "-o", out},
			1, "readers would refuse the store's header: cell spacing 2e+06 × 2e+06 m, want at most 1e+06 m"},
		{"-o the --resume folder", []string{"bake", "../../data/demo-hills.tif", "--window", "0,0,64,64", "--nodes", "20", "-o", out, "--resume", out},
			2, "-o and --resume both write"},
	} {
		_, errOut, code := runCmd(tc.args...)
		// Notes and warnings before the error (the huge synthetic map has
		// no lon/lat, its corners outside UTM's domain, and is 16,000 km
		// across) are not part of it.
		errOut = regexp.MustCompile(`(?m)^pvsbake: (note|warning): .*\n`).ReplaceAllString(errOut, "")
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: %s was written", tc.name, out)
		}
	}
}
