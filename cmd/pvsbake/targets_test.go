package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/internal/testwine"
)

// TestStoresSameOnEveryTarget: pvsbake built without cgo for windows/amd64
// and run under Wine, and for linux/arm64 and run under qemu-aarch64-static,
// bakes a Unity RAW heightmap and windows of a geographic and a UTM
// GeoTIFF (its own TIFF reader and package crs's lon/lat, against GDAL's
// and PROJ's here) into the same bytes as this build (cgo, GDAL, the
// amd64 assembly); each prints its version with its target and
// CGO_ENABLED=0, and each refuses a format only GDAL reads (an ESRI ASCII
// grid) in one line, exit 2, naming the GDAL build (make check; Wine and
// qemu-user-static are installed by make windows-deps and make portable).
func TestStoresSameOnEveryTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles pvsbake and runs it under Wine and qemu (make check)")
	}
	dir := t.TempDir()
	raw, err := os.ReadFile("../../data/demo-unity.raw")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "u.raw"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mount-washington.tif", "demo-hills.tif"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "data", f))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// An ESRI ASCII grid: GDAL reads it, the builds without GDAL do not.
	if err := os.WriteFile(filepath.Join(dir, "g.asc"), []byte("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The stores: a Unity RAW with world positions, a window of a
	// geographic GeoTIFF (lon/lat) and one of a UTM GeoTIFF (its lon/lat
	// lattice computed by PROJ here and by package crs there).
	bakes := map[string][]string{
		"unity": {"u.raw", "--cell-size", "80", "--height-range", "0,2000", "--engine", "unity", "--engine-origin", "-10200,500",
			"--window", "10,20,96,80", "--sectors", "64", "--budget", "2MB"},
		"mw":    {"mount-washington.tif", "--window", "40,50,64,48", "--budget", "1MB"},
		"hills": {"demo-hills.tif", "--window", "100,60,48,64", "--los", "conservative", "--budget", "1MB"},
	}
	bake := func(name, out string) []string {
		return append(append([]string{"bake"}, bakes[name]...), "--workers", "2", "-q", "-o", out)
	}
	// This build, in the same folder with the same relative paths (the
	// store records the DEM's path as given).
	t.Run("native", func(t *testing.T) {
		t.Chdir(dir)
		for name := range bakes {
			if _, errOut, code := runCmd(bake(name, "native-"+name+".pvs")...); code != 0 {
				t.Fatal(errOut)
			}
		}
	})
	build := func(goos, goarch, out string) string {
		t.Helper()
		bin := filepath.Join(dir, out)
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOEXPERIMENT=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s/%s: %v\n%s", goos, goarch, err, b)
		}
		return bin
	}
	check := func(target string, run func(args ...string) (string, int)) {
		t.Helper()
		if v, code := run("--version"); code != 0 || !strings.Contains(v, target) || !strings.Contains(v, "CGO_ENABLED=0") {
			t.Errorf("%s --version: exit %d: %q", target, code, v)
		}
		for name := range bakes {
			out := strings.ReplaceAll(target, "/", "-") + "-" + name + ".pvs"
			if msg, code := run(bake(name, out)...); code != 0 {
				t.Fatalf("%s bake %s: exit %d: %s", target, name, code, msg)
			}
			got, err := os.ReadFile(filepath.Join(dir, out))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "native-"+name+".pvs"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s baked other bytes than this build for %s (%d and %d bytes)", target, name, len(got), len(want))
			}
		}
		// What a build without GDAL cannot read: one line, exit 2,
		// naming the build that can.
		if msg, code := run("bake", "g.asc", "-o", "g.pvs", "--budget", "2MB"); code != 2 || !strings.Contains(msg, "need a build with GDAL") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("%s bake of an ESRI ASCII grid: exit %d: %q", target, code, msg)
		}
	}
	if _, err := exec.LookPath("qemu-aarch64-static"); err != nil {
		t.Log("no qemu-aarch64-static: linux/arm64 not run (make portable installs qemu-user-static)")
	} else {
		arm := build("linux", "arm64", "pvsbake-arm64")
		check("linux/arm64", func(args ...string) (string, int) {
			cmd := exec.Command("qemu-aarch64-static", append([]string{arm}, args...)...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); ok {
				return string(out), ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			return string(out), 0
		})
	}
	env := testwine.Env(t, dir)
	build("windows", "amd64", "pvsbake.exe")
	check("windows/amd64", func(args ...string) (string, int) {
		return testwine.Run(t, env, dir, append([]string{"pvsbake.exe"}, args...)...)
	})
}

// TestReplaceOpenStoreOnWindows: Windows does not rename over a file
// another process holds open. With frontierq serve (windows/amd64, under
// Wine) holding a store, baking into the same path fails in one line
// saying so, exit 1, keeps the old store byte for byte and leaves no
// temporary file (make check).
func TestReplaceOpenStoreOnWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pvsbake.exe and frontierq.exe under Wine (make check)")
	}
	dir := t.TempDir()
	env := testwine.Env(t, dir)
	for _, c := range []string{"pvsbake", "frontierq"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, c+".exe"), "../"+c)
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0", "GOEXPERIMENT=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", c, err, b)
		}
	}
	b, err := os.ReadFile("../../data/mount-washington.tif")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "mw.tif"), b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	bake := []string{"pvsbake.exe", "bake", "mw.tif", "--window", "0,0,32,32", "--budget", "200KB", "-q", "-o", "s.pvs"}
	if msg, code := testwine.Run(t, env, dir, bake...); code != 0 {
		t.Fatalf("bake: exit %d: %s", code, msg)
	}
	old, err := os.ReadFile(filepath.Join(dir, "s.pvs"))
	if err != nil {
		t.Fatal(err)
	}
	serve := exec.Command("wine", "frontierq.exe", "serve", "s.pvs", "--addr", "127.0.0.1:0")
	serve.Env, serve.Dir = env, dir
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Kill()
		serve.Wait()
		k := exec.Command("wineserver", "-k")
		k.Env = env
		k.Run()
	}()
	line := make([]byte, 256)
	if n, err := out.Read(line); err != nil || !strings.Contains(string(line[:n]), "serving") {
		t.Fatalf("frontierq serve: %q, %v", line[:n], err)
	}
	msg, code := testwine.Run(t, env, dir, append(bake[:len(bake)-1], "s.pvs", "--sectors", "64")...)
	if code != 1 || !strings.Contains(msg, "open in another program") || !strings.Contains(msg, "old file is kept") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
		t.Fatalf("bake over a served store: exit %d: %q", code, msg)
	}
	now, err := os.ReadFile(filepath.Join(dir, "s.pvs"))
	if err != nil || !bytes.Equal(now, old) {
		t.Fatalf("the served store changed (%v)", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".s.pvs*"))
	if len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
