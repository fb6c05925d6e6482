package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// TestHostileInputs: huge rasters are refused before any cell is read,
// multi-band rasters need --band, bad flags are usage errors (exit 2), and
// -o naming a folder fails before the bake; every failure is one line.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	// A 100000² VRT without sources: GDAL would serve 10^10 zero cells.
	huge := filepath.Join(dir, "huge.vrt")
	os.WriteFile(huge, []byte(`<VRTDataset rasterXSize="100000" rasterYSize="100000">
  <VRTRasterBand dataType="Float32" band="1"/>
</VRTDataset>`), 0o644)
	rgb := filepath.Join(dir, "rgb.png")
	img := image.NewRGBA(image.Rect(0, 0, 12, 10))
	for i := range 120 {
		img.Set(i%12, i/12, color.RGBA{uint8(i), uint8(2 * i), 7, 255})
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	os.WriteFile(rgb, buf.Bytes(), 0o644)
	dem := "../../data/demo-hills.tif"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"info of a 100000² raster", []string{"info", huge}, 1, "100000×100000 cells need about"},
		{"viewshed of a 100000² raster", []string{"viewshed", huge, "--at", "5,5", "-o", filepath.Join(dir, "v.tif")}, 1, "read a smaller window, e.g. --window 0,0,"},
		{"bake of a 100000² raster", []string{"bake", huge, "-o", filepath.Join(dir, "h.pvs"), "--budget", "1GB"}, 1, "100000×100000 cells need about"},
		{"3-band PNG", []string{"info", rgb}, 1, "several bands: 1 Red Byte, 2 Green Byte, 3 Blue Byte; pick the elevation band with --band N"},
		{"band out of range", []string{"info", rgb, "--band", "4"}, 1, "band 4: the raster has 3"},
		{"negative band", []string{"info", rgb, "--band", "-1"}, 2, "--band -1"},
		{"-o a folder", []string{"bake", dem, "-o", dir, "--budget", "1MB"}, 2, "is a directory"},
		{"bad sectors", []string{"bake", dem, "-o", filepath.Join(dir, "s.pvs"), "--budget", "1MB", "--sectors", "2"}, 2, "2 sectors"},
		{"bad refraction", []string{"bake", dem, "-o", filepath.Join(dir, "s.pvs"), "--budget", "1MB", "--curvature", "--refraction", "7"}, 2, "refraction"},
		{"budget without a unit, before the DEM is read", []string{"bake", filepath.Join(dir, "absent.tif"), "-o", filepath.Join(dir, "s.pvs"), "--budget", "10"}, 2, `size "10" has no unit: give one, e.g. 10MB`},
		{"resume a shard", []string{"bake", dem, "-o", filepath.Join(dir, "s.pvs"), "--budget", "1MB", "--shard", "0/2", "--resume", filepath.Join(dir, "ck")}, 2, "--resume bakes in its own tiles"},
		{"many workers", []string{"bake", dem, "-o", filepath.Join(dir, "s.pvs"), "--budget", "1MB", "--workers", "100000"}, 2, "--workers 100000"},
		{"synth of a million cells a side", []string{"synth", "--size", "1000000", "-o", filepath.Join(dir, "s.tif")}, 2, "--size 1000000"},
		{"infinite cell size", []string{"info", dem, "--cell-size", "Inf"}, 2, "want 0.001 to 1000000 metres"},
		{"absurd cell size", []string{"info", dem, "--cell-size", "1e308"}, 2, "--cell-size 1e+308"},
		{"absurd relief", []string{"synth", "--kind", "hills", "--relief", "1e308", "-o", filepath.Join(t.TempDir(), "s.tif")}, 2, "--relief 1e+308"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, errOut, code := runCmd(tc.args...)
			runtime.ReadMemStats(&m1)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d (want %d), stderr:\n%s", code, tc.code, errOut)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 && tc.code == 1 {
				t.Errorf("%d lines on stderr:\n%s", n+1, errOut)
			}
			if a := m1.TotalAlloc - m0.TotalAlloc; a > 100<<20 {
				t.Errorf("allocated %d MB", a>>20)
			}
		})
	}
	if _, errOut, code := runCmd("info", rgb, "--band", "2"); code != 0 {
		t.Errorf("--band 2: exit %d: %s", code, errOut)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.pvs")); len(m) != 0 {
		t.Errorf("outputs left: %v", m)
	}
}

// TestInterruptedBakes: a bake stopped by SIGINT or SIGTERM removes its
// temporary files and says so in one line (exit 1); one killed with
// SIGKILL leaves them, and the next bake of the same output removes them;
// a multi-budget bake's outputs appear together.
func TestInterruptedBakes(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes to interrupt them (make check)")
	}
	dem, win := testdem.Path(t, "N44W072.hgt", heightmap.Window{Col: 700, Row: 700, Width: 200, Height: 200})
	dir := t.TempDir()
	bin := buildPvsbake(t, dir)
	out := filepath.Join(dir, "store")
	// Long enough to be caught while it runs: about a minute of work.
	slow := []string{"bake", dem, "-o", out, "--window", win.String(), "--budget", "50MB,100MB", "--quiet", "--workers", "1"}
	// The stores' temporary files and their index sidecars (.index).
	temps := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".store-*.tmp*"))
		return m
	}
	stores := func() []string {
		return slices.DeleteFunc(temps(), func(n string) bool { return strings.HasSuffix(n, ".index") })
	}
	start := func() (*exec.Cmd, *bytes.Buffer) {
		var e bytes.Buffer
		cmd := exec.Command(bin, slow...)
		cmd.Stderr = &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); len(stores()) < 2; {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no temporary files after 30 s: %s", e.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		return cmd, &e
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd, e := start()
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(e.String(), "interrupted: nothing written") {
			t.Errorf("%v: %v, stderr %q", sig, err, e.String())
		}
		if left := temps(); len(left) != 0 {
			t.Errorf("%v left %v", sig, left)
		}
	}
	// A resumable bake of one tile keeps nothing, and says so at the start
	// and when interrupted.
	var e bytes.Buffer
	rs := exec.Command(bin, append(slices.Clone(slow), "--resume", filepath.Join(dir, "tiles"))...)
	rs.Stderr = &e
	if err := rs.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	rs.Process.Signal(syscall.SIGINT)
	if err := rs.Wait(); err == nil || !strings.Contains(e.String(), "interrupted: nothing was kept in") || !strings.Contains(e.String(), "the same command starts again") {
		t.Errorf("an interrupted bake of one tile with --resume: %v, stderr %q", err, e.String())
	}
	cmd, _ := start()
	cmd.Process.Kill()
	cmd.Wait()
	left := temps()
	if len(stores()) != 2 {
		t.Fatalf("after SIGKILL: %v", left)
	}
	old := time.Now().Add(-time.Minute)
	for _, n := range left {
		os.Chtimes(n, old, old)
	}
	quick := []string{"bake", dem, "-o", out, "--window", heightmap.Window{Col: win.Col, Row: win.Row, Width: 24, Height: 24}.String(), "--sectors", "64", "--budget", "50MB,100MB", "--quiet"}
	if o, err := exec.Command(bin, quick...).CombinedOutput(); err != nil {
		t.Fatalf("bake after a kill: %v: %s", err, o)
	}
	if left := temps(); len(left) != 0 {
		t.Errorf("the next bake left %v", left)
	}
	for _, b := range []string{"50MB", "100MB"} {
		if _, err := os.Stat(fmt.Sprintf("%s-%s.pvs", out, b)); err != nil {
			t.Error(err)
		}
	}
	// Killed again, and rerun with one budget, whose store is -o itself:
	// the other budgets' temporaries go too.
	cmd, _ = start()
	cmd.Process.Kill()
	cmd.Wait()
	for _, n := range temps() {
		os.Chtimes(n, old, old)
	}
	one := slices.Clone(quick)
	one[len(one)-2] = "50MB"
	if o, err := exec.Command(bin, one...).CombinedOutput(); err != nil {
		t.Fatalf("one budget after a kill: %v: %s", err, o)
	}
	if left := temps(); len(left) != 0 {
		t.Errorf("a rerun with one budget left %v", left)
	}
}
