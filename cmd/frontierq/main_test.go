package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	stdpng "image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/audit"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/sim"
)

func runCmd(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = cli.Report("frontierq", run(args, &o, &e), &e)
	return o.String(), e.String(), code
}

var (
	storeOnce sync.Once
	storePath string
	storeErr  error
)

// testStore bakes a 48×40 window of the demo terrain once for all tests.
func testStore(t *testing.T) string {
	t.Helper()
	storeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "frontierq-test")
		if err != nil {
			storeErr = err
			return
		}
		dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
		if err != nil {
			storeErr = err
			return
		}
		p := horizon.ThesisParams()
		p.Sectors = 256
		storePath = filepath.Join(dir, "t.pvs")
		_, storeErr = bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: storePath, Cap: compress.Cap{Nodes: 40}}}})
	})
	if storeErr != nil {
		t.Fatal(storeErr)
	}
	return storePath
}

// findPair returns a mutually invisible pair on the test store.
func findPair(t *testing.T, store string) (a, b string) {
	for _, p := range [][2]string{{"2,2", "45,37"}, {"20,35", "40,3"}, {"5,30", "44,5"}, {"1,38", "46,1"}, {"10,10", "40,30"}} {
		out, _, code := runCmd(store, "--a", p[0], "--b", p[1], "--json")
		if code == 0 && strings.Contains(out, `"mutually_visible":false`) {
			return p[0], p[1]
		}
	}
	t.Fatal("no mutually invisible pair among the candidates on the committed demo store")
	return
}

func TestQueryOutputs(t *testing.T) {
	store := testStore(t)
	a, b := findPair(t, store)
	dir := t.TempDir()
	png, mask := filepath.Join(dir, "f.png"), filepath.Join(dir, "f.tif")
	out, errOut, code := runCmd(store, "--a", a, "--b", b, "--json", "--png", png, "--mask", mask, "--merge", "lossy", "--neighbours", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res resultJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if res.MutuallyVisible || res.A.Points < 1 || res.B.Points < 1 || len(res.A.Quads) == 0 || res.ElapsedMS <= 0 {
		t.Fatalf("result %+v", res)
	}
	if !slices.Equal(res.Wrote, []string{mask, png}) {
		t.Errorf("--json names %v as written, want the mask and the picture", res.Wrote)
	}
	// Without --json, one line per file written.
	png2, mask2 := filepath.Join(dir, "g.png"), filepath.Join(dir, "g.tif")
	text, _, _ := runCmd(store, "--a", a, "--b", b, "--png", png2, "--mask", mask2)
	if !strings.Contains(text, "wrote "+mask2+": ") || !strings.Contains(text, "wrote "+png2+": ") {
		t.Errorf("the files written are not named:\n%s", text)
	}
	m, err := heightmap.Load(mask, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[float32]int{}
	for i, v := range m.Elev {
		if !m.IsNodata(i) { // 0 is the mask's nodata value
			counts[v]++
		}
	}
	if counts[1] != res.A.Points || counts[2] != res.B.Points || len(counts) != 2 || m.Width != 48 || m.CRSName != "EPSG:32619" {
		t.Errorf("mask holds %v for %d/%d points, %d wide, %s", counts, res.A.Points, res.B.Points, m.Width, m.CRSName)
	}
	if _, err := exec.LookPath("gdalinfo"); err == nil {
		info, err := exec.Command("gdalinfo", mask).CombinedOutput()
		if err != nil || !strings.Contains(string(info), "NoData Value=0") || !strings.Contains(string(info), "Color Table") ||
			!strings.Contains(string(info), "1: 30,90,230,255") {
			t.Errorf("gdalinfo of the mask: %v\n%s", err, info)
		}
	}
	if f, err := os.Open(png); err != nil {
		t.Errorf("png: %v", err)
	} else {
		cfg, err := stdpng.DecodeConfig(f)
		f.Close()
		// 48×40 cells of 10 m: 2 pixels per cell, then the legend.
		if err != nil || cfg.Width != 2*48 && cfg.Width != 260 || cfg.Height <= 2*40 {
			t.Errorf("png %d×%d: %v", cfg.Width, cfg.Height, err)
		}
	}
	summary, _, code := runCmd(store, "--a", a, "--b", b, "--method", "simple")
	if code != 0 || !strings.Contains(summary, "simple/lossless") || !strings.Contains(summary, "points in all") {
		t.Errorf("summary: %s", summary)
	}
}

func TestQueryErrors(t *testing.T) {
	store := testStore(t)
	dir := t.TempDir()
	notStore := filepath.Join(dir, "x.pvs")
	os.WriteFile(notStore, []byte("hello"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no points", []string{store}, 2, "needs both players: --a, --a-xy, --a-lonlat or --a-world"},
		{"two forms", []string{store, "--a", "1,1", "--a-xy", "300000,4930000", "--b", "2,2"}, 2, "give exactly one of --a, --a-xy, --a-lonlat or --a-world"},
		{"bad lonlat", []string{store, "--a-lonlat", "east", "--b", "2,2"}, 2, `--a-lonlat "east": want lon,lat in degrees`},
		{"bad method", []string{store, "--a", "1,1", "--b", "2,2", "--method", "magic"}, 2, "--method"},
		{"bad neighbours", []string{store, "--a", "1,1", "--b", "2,2", "--neighbours", "6"}, 2, "--neighbours"},
		{"outside", []string{store, "--a", "48,1", "--b", "2,2"}, 1, "--a 48,1 is outside the 48×40 grid: want col 0 to 47, row 0 to 39"},
		{"position outside", []string{store, "--a", "47.6,1.2", "--b", "2,2"}, 1, "--a 47.6,1.2 is outside the 48×40 grid: want col 0 to 47, row 0 to 39"},
		{"map point outside", []string{store, "--a-xy", "0,0", "--b", "2,2"}, 1, "is outside the grid: x 300400.000 to 300880.000, y 4928100.000 to 4928500.000"},
		{"lonlat outside", []string{store, "--a-lonlat", "-75,44", "--b", "2,2"}, 1, "--a-lonlat -75,44 is outside the grid: want lon -71."},
		{"not a store", []string{notStore, "--a", "1,1", "--b", "2,2"}, 1, "not a PVS store"},
		{"mistyped command", []string{"verfy", store, "--dem", "d.tif"}, 2, "did you mean 'frontierq verify'?"},
		{"mistyped flag", []string{store, "--a", "1,1", "--b", "2,2", "--jsn"}, 2, "did you mean --json?"},
		{"bool with a value", []string{"sim", store, "--extend", "false"}, 2, "--extend takes no separate value: write --extend=false"},
		{"bad number", []string{"sim", store, "--bots", "lots"}, 2, `--bots "lots": want an integer`},
		{"sim rate", []string{"sim", store, "--hz", "1000"}, 2, "--hz 1000: want 1 to 120"},
		{"sim bots", []string{"sim", store, "--bots", "5000"}, 2, "--bots 5000: want 2 to 1024"},
		{"sim duration", []string{"sim", store, "--minutes", "-1"}, 2, "--minutes -1"},
		{"sim without store", []string{"sim"}, 2, "sim takes one STORE, got none"},
		{"picture over the store", []string{store, "--a", "1,1", "--b", "2,2", "--png", store}, 2, "--png " + store + " is the input STORE"},
		{"two outputs on one file", []string{store, "--a", "1,1", "--b", "2,2", "--png", notStore + ".x", "--mask", notStore + ".x"}, 2, "--png and --mask both write"},
		{"two stores", []string{"serve", store, store}, 2, "serve takes one STORE, got 2"},
		{"serve beyond loopback", []string{"serve", store, "--addr", ":8080"}, 2, "--addr :8080 listens on every interface, beyond this machine: add --public"},
		{"serve on a LAN address", []string{"serve", store, "--addr", "192.168.1.5:8080"}, 2, "add --public"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d (want %d): %s", code, tc.code, errOut)
			}
			if n := strings.Count(errOut, "\n"); tc.code == 2 && n != 1 {
				t.Errorf("usage error in %d lines:\n%s", n, errOut)
			}
		})
	}
	// Two players in one cell see each other: an answer (it was exit 1,
	// "the two points are the same cell").
	if out, errOut, code := runCmd(store, "--a", "3,3", "--b", "3.2,2.9", "--json"); code != 0 || !strings.Contains(out, `"mutually_visible":true`) {
		t.Errorf("one cell for both: exit %d: %s%s", code, out, errOut)
	}
}

// TestHelpAndVersion: help in every form exits 0 on stdout, for the query
// and every command; --version names the program.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"verify", "--help"}, {"sim", "-h"}, {"help", "serve"}, {"completion", "--help"}} {
		out, errOut, code := runCmd(args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	if out, _, code := runCmd("--version"); code != 0 || !strings.HasPrefix(out, "frontierq ") {
		t.Errorf("--version: exit %d: %q", code, out)
	}
}

func TestMutuallyVisibleIsNormal(t *testing.T) {
	store := testStore(t)
	out, _, code := runCmd(store, "--a", "10,10", "--b", "11,10", "--json")
	if code != 0 || !strings.Contains(out, `"mutually_visible":true`) || !strings.Contains(out, `"quads":[]`) {
		t.Errorf("exit %d: %s", code, out)
	}
}

func TestVerify(t *testing.T) {
	store := testStore(t)
	out, errOut, code := runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "--pairs", "5", "--sample", "0")
	if code != 0 || !strings.Contains(out, "violations 0") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}

// TestVerifyExact: a store baked with a margin passes the check against the
// exact line of sight, which names itself in the report.
func TestVerifyExact(t *testing.T) {
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors, p.Margin = 256, 2
	store := filepath.Join(t.TempDir(), "margin.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 40}}}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "--pairs", "5", "--sample", "8", "--exact")
	if code != 0 || !strings.Contains(out, "exact line of sight") || !strings.Contains(out, "violations 0") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}

// TestVerifyExactMaxDistance: the exact check applies the store's view
// distance, as the bake does: pairs farther apart than
// --max-distance cannot see each other, so a clean store with one passes.
// Without it the exact check counted thousands of far cell pairs.
func TestVerifyExactMaxDistance(t *testing.T) {
	dem, err := heightmap.Load("../../data/mount-washington.tif", heightmap.Options{Window: heightmap.Window{Col: 100, Row: 100, Width: 48, Height: 48}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.MaxDistance = 1000 // metres: about 15 × 11 of these cells
	store := filepath.Join(t.TempDir(), "near.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 400}}}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd("verify", store, "--dem", "../../data/mount-washington.tif", "--pairs", "5", "--sample", "8", "--exact", "-q")
	if code != 0 || !strings.Contains(out, "violations 0") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}

// TestVerifyExactRegion: a store of the region model passes the exact
// check at positions inside the cells (its default there), which says how
// many position pairs it tried; --positions needs --exact.
func TestVerifyExactRegion(t *testing.T) {
	dem, err := heightmap.Load("../../data/mount-washington.tif", heightmap.Options{Window: heightmap.Window{Col: 120, Row: 90, Width: 40, Height: 36}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.LOS, p.MaxDistance = horizon.LOSRegion, 1200
	store := filepath.Join(t.TempDir(), "region.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 400}}}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd("verify", store, "--dem", "../../data/mount-washington.tif", "--pairs", "3", "--sample", "3", "--exact", "-q")
	if code != 0 || !strings.Contains(out, "between positions inside the cells") || strings.Contains(out, "cells: 0 position pairs") || !strings.Contains(out, "violations 0") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
	if _, errOut, code := runCmd("verify", store, "--dem", "../../data/mount-washington.tif", "--positions", "4"); code != 2 || !strings.Contains(errOut, "with --exact") {
		t.Errorf("--positions without --exact: exit %d: %s", code, errOut)
	}
}

// TestPVSCellStore: a store of PVS cells 3×3 heightmap cells wide (the last
// row and column covering one heightmap sample) answers
// queries on its own grid and passes verify --exact at positions on the
// heightmap; the readers that would recompute PVSs from its own elevations
// (pvs --exact) refuse in one line, serve refuses only exact=1, and sim
// reads the heightmap for its oracle and its exact audit of real positions.
func TestPVSCellStore(t *testing.T) {
	fine, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 61, Height: 52}})
	if err != nil {
		t.Fatal(err)
	}
	dem, err := heightmap.Coarsen(fine, 3)
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams()
	p.Sectors, p.LOS, p.PVSCell = 256, horizon.LOSRegion, 3
	store := filepath.Join(t.TempDir(), "pvs3.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 60}}}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(store, "--a", "1.2,0.8", "--b", "19,16", "--json")
	if code != 0 || !strings.Contains(out, `"col":1,"row":1`) {
		t.Errorf("query: exit %d: %s %s", code, out, errOut)
	}
	out, errOut, code = runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "--pairs", "3", "--sample", "3", "--exact", "-q")
	if code != 0 || !strings.Contains(out, "between positions inside the cells") || !strings.Contains(out, "violations 0") {
		t.Errorf("verify --exact: exit %d: %s %s", code, out, errOut)
	}
	if _, errOut, code := runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "--exact", "--positions", "0"); code != 2 || !strings.Contains(errOut, "no one sample point") {
		t.Errorf("verify --exact --positions 0: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCmd("pvs", store, "--at", "2,2", "--exact", "-o", filepath.Join(t.TempDir(), "p.tif")); code != 1 || !strings.Contains(errOut, "coarser than its heightmap") {
		t.Errorf("pvs --exact: exit %d: %s", code, errOut)
	}
	out, errOut, code = runCmd("sim", store, "--bots", "16", "--minutes", "1", "--exact-every", "1", "--json", "-q")
	var run struct {
		Checked int64 `json:"exact_checked"`
		Missed  int64 `json:"exact_missed"`
	}
	if err := json.Unmarshal([]byte(out), &run); code != 0 || err != nil || run.Checked < 50 || run.Missed != 0 {
		t.Errorf("sim, the heightmap from the store's source: exit %d (%v): %d of %d silent pairs seen between real positions; %s",
			code, err, run.Missed, run.Checked, errOut)
	}
	t.Logf("sim: %d of %d silent pairs seen between real positions", run.Missed, run.Checked)
	// Bots gathered in the corner cell that the heightmap covers one
	// sample of stand at the terrain's edge, not past it.
	out, errOut, code = runCmd("sim", store, "--bots", "16", "--minutes", "1", "--exact-every", "1", "--hotspot", "20,17,60,0.6", "--schemes", "CS,FB", "--json", "-q")
	if err := json.Unmarshal([]byte(out), &run); code != 0 || err != nil || run.Checked < 50 || run.Missed != 0 {
		t.Errorf("sim, bots in the corner: exit %d (%v): %d of %d silent pairs seen between real positions; %s",
			code, err, run.Missed, run.Checked, errOut)
	}
	v, err := newViewer(store)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, _, err := v.pvs(httptest.NewRequest("GET", "/api/pvs?at=2,2&exact=1", nil)); err == nil || !strings.Contains(err.Error(), "coarser than its heightmap") {
		t.Errorf("serve exact=1: %v", err)
	}
	if _, _, err := v.pvs(httptest.NewRequest("GET", "/api/pvs?at=2,2", nil)); err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestSim runs the simulation on the test store: the table lists every
// scheme, FB misses nothing, and bad flags are usage errors.
func TestSim(t *testing.T) {
	store := testStore(t)
	out, errOut, code := runCmd("sim", store, "--bots", "5", "--minutes", "0.2", "--speed", "30", "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+len(sim.Schemes) || lines[0] != strings.Join(sim.Header, ",") {
		t.Fatalf("csv:\n%s", out)
	}
	for k, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[0] != "t" || f[1] != "5" || f[2] != string(sim.Schemes[k]) || f[3] != "120" {
			t.Errorf("row %q", l)
		}
		if (f[2] == "FB" || f[2] == "FBP" || f[2] == "GQ" || f[2] == "RP") && f[12] != "0" {
			t.Errorf("%s missed %s", f[2], f[12])
		}
		if f[2] == "NPP" && f[4] != "2400" { // 5·4 packets × 120 ticks
			t.Errorf("NPP packets %s", f[4])
		}
	}
	out, _, code = runCmd("sim", store, "--bots", "4", "--minutes", "0.1")
	if code != 0 || !strings.Contains(out, "FBP") || !strings.Contains(out, "exact line of sight") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}
	out, _, code = runCmd("sim", store, "--bots", "4", "--minutes", "0.1", "--schemes", "gq,CS")
	if code != 0 || strings.Contains(out, "\nFB ") || strings.Contains(out, "FB: whole tick") || !strings.Contains(out, "\nCS ") || !strings.Contains(out, "\nGQ ") || !strings.Contains(out, "GQ per tick") {
		t.Errorf("--schemes gq,CS (exit %d):\n%s", code, out)
	}
	out, _, code = runCmd("sim", store, "--bots", "5", "--minutes", "0.1", "--schemes", "VON,CS")
	if code != 0 || !strings.Contains(out, "\nVON ") || !strings.Contains(out, "links per node") || strings.Contains(out, "GQ per tick") {
		t.Errorf("--schemes VON,CS (exit %d):\n%s", code, out)
	}
	out, _, code = runCmd("sim", store, "--bots", "4", "--minutes", "0.1", "--schemes", "RP,CS", "--region-level", "2")
	if code != 0 || !strings.Contains(out, "\nRP ") || !strings.Contains(out, "RP per tick (regions of level 2)") || strings.Contains(out, "GQ per tick") {
		t.Errorf("--schemes RP,CS (exit %d):\n%s", code, out)
	}
	out, _, code = runCmd("sim", store, "--bots", "4", "--minutes", "0.1", "--schemes", "CS,GQ", "--hotspot", "5,5,40", "--json")
	if code != 0 || !strings.Contains(out, `"hot_spot": {`) || !strings.Contains(out, `"radius_m": 40`) {
		t.Errorf("--hotspot (exit %d):\n%s", code, out)
	}
	for _, args := range [][]string{
		{"sim", store, "--schemes", "CS,XX"},
		{"sim", store, "--hotspot", "5,5"},
		{"sim", store, "--hotspot", "5,5,0"},
		{"sim", store, "--hotspot", "5,5,40,1.5"},
		{"sim", store, "--hotspot", "5000,5,40"},
		{"sim", store, "--bots", "1"},
		{"sim", store, "--region-level", "0"},
		{"sim", store, "--region-level", "14"},
		{"sim", store, "--minutes", "-1"},
		{"sim", store, "--predict", "0"},
		{"sim", store, "--budget-ms", "NaN"},
		{"sim"},
	} {
		if _, errOut, code := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
	if _, errOut, code := runCmd("sim", "/nonexistent.pvs"); code != 1 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("missing store: exit %d, %q", code, errOut)
	}
}

// TestVerifyBadInputs: a store whose header's window does not match its
// grid is named as damaged (not blamed on --window); absurd counts are
// usage errors.
func TestVerifyBadInputs(t *testing.T) {
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 16, Height: 12}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors = 64
	good := filepath.Join(t.TempDir(), "good.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: good, Cap: compress.Cap{Nodes: 40}}}}); err != nil {
		t.Fatal(err)
	}
	// Its header's window damaged (a bake refuses to write it).
	s, err := compress.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hd := s.Header
	hd.Window[0] = -3
	store := filepath.Join(t.TempDir(), "badwindow.pvs")
	if err := bake.WriteStore(store, hd, s.Hierarchy, s, s.Stats); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", store, "--dem", "../../data/demo-hills.tif"}, 1, "badwindow.pvs: not a valid PVS store at byte 32: header: window [-3 150 16 12] of the source raster"},
		{[]string{"verify", store, "--dem", "../../data/demo-hills.tif", "--pairs", "1000000000"}, 2, "--pairs 1000000000"},
		{[]string{"verify", store, "--dem", "../../data/demo-hills.tif", "--sample", "-1"}, 2, "--sample -1"},
	} {
		_, errOut, code := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "--window") {
			t.Errorf("%v: exit %d (want %d): %s", tc.args, code, tc.code, errOut)
		}
	}
}

// TestLonLatAndGeoJSON: players given as lon/lat land on the cells whose
// centres those are; --geojson opens in GDAL (ogrinfo) with the store's CRS
// and one polygon per 4-connected region of each frontier (counted here from
// the --mask of the same query).
func TestLonLatAndGeoJSON(t *testing.T) {
	store := testStore(t)
	a, b := findPair(t, store)
	s, err := bake.OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	ref := storeRef(s)
	lonlat := func(cell string) (string, [2]int) {
		c, r, err := cli.ParseCell("x", cell)
		if err != nil {
			t.Fatal(err)
		}
		x, y, err := ref.CellToMap(c, r)
		if err != nil {
			t.Fatal(err)
		}
		lon, lat, err := ref.MapToLonLat(x, y)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%.9f,%.9f", lon, lat), [2]int{c, r}
	}
	al, ac := lonlat(a)
	bl, bc := lonlat(b)
	dir := t.TempDir()
	gj, mask := filepath.Join(dir, "f.geojson"), filepath.Join(dir, "f.tif")
	out, errOut, code := runCmd(store, "--a-lonlat", al, "--b-lonlat", bl, "--geojson", gj, "--mask", mask, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res resultJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if [2]int{res.A.Col, res.A.Row} != ac || [2]int{res.B.Col, res.B.Row} != bc || res.A.Lon == nil || res.A.X == nil {
		t.Fatalf("players at %v %v, want %v %v", res.A.Location, res.B.Location, ac, bc)
	}
	if want := fmt.Sprintf("%.9f,%.9f", *res.A.Lon, *res.A.Lat); want[:12] != al[:12] {
		t.Errorf("A's lon/lat %s, asked %s", want, al)
	}
	m, err := heightmap.Load(mask, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	regions := 0
	seen := make([]bool, len(m.Elev))
	for i := range m.Elev {
		if m.IsNodata(i) || seen[i] {
			continue
		}
		regions++
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c, r := k%m.Width, k/m.Width
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nc, nr := c+d[0], r+d[1]
				if n := nr*m.Width + nc; nc >= 0 && nr >= 0 && nc < m.Width && nr < m.Height && !seen[n] && !m.IsNodata(n) && m.Elev[n] == m.Elev[k] {
					seen[n] = true
					stack = append(stack, n)
				}
			}
		}
	}
	if _, err := exec.LookPath("ogrinfo"); err != nil {
		t.Skip("ogrinfo not installed (Debian's gdal-bin; make test installs it)")
	}
	info, err := exec.Command("ogrinfo", "-so", "-al", gj).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, info)
	}
	if !strings.Contains(string(info), fmt.Sprintf("Feature Count: %d\n", regions)) || !strings.Contains(string(info), `ID["EPSG",32619]`) {
		t.Errorf("ogrinfo, want %d features in EPSG:32619:\n%s", regions, info)
	}
}

// TestJSONAndPVSExport: every reporting command prints one JSON object with
// --json; `pvs` writes a cell's PVS as stored and recomputed, and the
// stored one never hides a cell the recomputed one sees (the cap only turns
// hidden into unknown, §3.4).
func TestJSONAndPVSExport(t *testing.T) {
	store := testStore(t)
	dir := t.TempDir()
	jsonOut := func(args ...string) map[string]any {
		t.Helper()
		out, errOut, code := runCmd(args...)
		var m map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
			t.Fatalf("%v: exit %d, not one JSON object:\n%s\n%s", args, code, out, errOut)
		}
		return m
	}
	stored, exact := filepath.Join(dir, "s.tif"), filepath.Join(dir, "e.tif")
	ms := jsonOut("pvs", store, "--at", "20,20", "-o", stored, "--json")
	me := jsonOut("pvs", store, "--at", "20,20", "-o", exact, "--exact", "--json")
	if ms["visible"].(float64)+ms["unknown"].(float64)+ms["hidden"].(float64) != 48*40 || me["unknown"].(float64) != 0 {
		t.Errorf("counts: stored %v, exact %v", ms, me)
	}
	gs, err := heightmap.Load(stored, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ge, err := heightmap.Load(exact, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ge.Elev {
		if ge.Elev[i] == 255 && gs.Elev[i] == 0 {
			t.Fatalf("cell %d: visible when recomputed, hidden in the store", i)
		}
	}
	// Without --dem: the DEM the store names, where it still is.
	v := jsonOut("verify", store, "--pairs", "3", "--sample", "4", "--json", "-q")
	if v["pairs"].(float64) != 3 || v["violations"].(float64) != 0 {
		t.Errorf("verify: %v", v)
	}
	sm := jsonOut("sim", store, "--bots", "4", "--minutes", "0.05", "--schemes", "CS,GQ", "--json", "-q")
	if rows, ok := sm["schemes"].([]any); !ok || len(rows) != 2 || sm["ticks"].(float64) != 30 {
		t.Errorf("sim: %v", sm)
	}
}

// TestNoGeoreferencing: on a store baked from a headerless RAW heightmap
// (no geotransform, no CRS), map x/y and lon/lat are refused in one line
// naming the value, cells work, and --geojson is in cell coordinates.
func TestNoGeoreferencing(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "h.r16")
	const n = 32
	buf := make([]byte, 2*n*n)
	for i := range n * n {
		v := uint16(1000 + 40*((i%n)/8) + 25*((i/n)%5))
		buf[2*i], buf[2*i+1] = byte(v), byte(v>>8)
	}
	if err := os.WriteFile(raw, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	dem, err := heightmap.Load(raw, heightmap.Options{CellSize: 10, ZScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors = 64
	store := filepath.Join(dir, "raw.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 40}}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--a-lonlat=-71,44", "--b", "30,30"}, "--a-lonlat -71,44: the grid has no CRS"},
		{[]string{"--a-xy", "5,5", "--b", "30,30"}, "--a-xy 5,5: the grid has no georeferencing"},
	} {
		_, errOut, code := runCmd(append([]string{store}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
	// verify finds the RAW file and its scales in the store's header; once
	// the file is gone it asks for --dem.
	if out, errOut, code := runCmd("verify", store, "--pairs", "2", "-q"); code != 0 || !strings.Contains(out, "violations 0") {
		t.Errorf("verify with the recorded RAW flags: exit %d: %s %s", code, out, errOut)
	}
	if err := os.Remove(raw); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCmd("verify", store); code != 2 || !strings.Contains(errOut, "verify needs --dem DEM") {
		t.Errorf("verify without --dem: exit %d: %s", code, errOut)
	}
	gj := filepath.Join(dir, "f.geojson")
	out, errOut, code := runCmd(store, "--a", "1,1", "--b", "30,30", "--geojson", gj)
	if code != 0 || (!strings.Contains(out, "cell coordinates") && !strings.Contains(out, "see each other")) {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}

// TestVerifyNodataAndWrongDEM: verify applies the bake's rule for nodata
// cells (hidden, never a player's) and so finds no violation on a
// half-nodata terrain; given another DEM it says the DEM does not match the
// store instead of blaming the frontiers.
func TestVerifyNodataAndWrongDEM(t *testing.T) {
	src, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 60, Row: 60, Width: 40, Height: 40}})
	if err != nil {
		t.Fatal(err)
	}
	g := *src
	g.Elev = slices.Clone(src.Elev)
	g.Nodata = make([]bool, len(g.Elev))
	for i := range g.Elev {
		if i%40 >= 20 { // the east half
			g.Nodata[i] = true
			g.NodataCount++
		}
	}
	dir := t.TempDir()
	dem := filepath.Join(dir, "half.tif")
	if err := gdal.WriteElevation(dem, &g); err != nil {
		t.Fatal(err)
	}
	loaded, err := heightmap.Load(dem, heightmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors = 128
	store := filepath.Join(dir, "half.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: loaded, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 60}}}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd("verify", store, "--dem", dem, "--pairs", "20", "--sample", "0", "-q")
	if code != 0 || !strings.Contains(out, "violations 0") {
		t.Errorf("half-nodata terrain: exit %d: %s %s", code, out, errOut)
	}
	_, errOut, code = runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "-q")
	if code != 1 || !strings.Contains(errOut, "demo-hills.tif does not match") || strings.Contains(errOut, "violation") {
		t.Errorf("another DEM: exit %d: %s", code, errOut)
	}
}

// TestAdversarial: verify --exact --adversarial reports its search
// consistently (candidates ⊇ exactly visible ⊇ violations, exit 1 exactly
// when a violation is found) and needs --exact.
func TestAdversarial(t *testing.T) {
	store := testStore(t)
	out, errOut, code := runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "--exact", "--adversarial", "--pairs", "8", "--json", "-q")
	var rep audit.AdversarialReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	if rep.Observers != 8 || rep.ConservativeVisible == 0 || rep.Candidates < rep.ExactlyVisible || rep.ExactlyVisible < rep.Violations ||
		(code == 1) != (rep.Violations > 0) || (rep.Violations > 0 && !(rep.ClearanceMaxMM >= rep.ClearanceMedianMM && rep.ClearanceMedianMM > 0)) {
		t.Errorf("exit %d, report %+v", code, rep)
	}
	if _, errOut, code := runCmd("verify", store, "--dem", "../../data/demo-hills.tif", "--adversarial"); code != 2 || !strings.Contains(errOut, "add --exact") {
		t.Errorf("--adversarial alone: exit %d: %s", code, errOut)
	}
}

// TestMain lets a test run this test binary as frontierq itself, in a
// child process (FRONTIERQ_MAIN=1), under limits a test cannot set on
// itself.
func TestMain(m *testing.M) {
	if os.Getenv("FRONTIERQ_MAIN") != "" {
		main()
	}
	os.Exit(m.Run())
}

// TestWritesOnAFullDisk: with every write failing (a file size limit of 0
// limit standing for a full disk), every output file errs with exit 1 and
// leaves nothing behind — GDAL's GeoJSON writer once exited 0 with an
// empty file.
func TestWritesOnAFullDisk(t *testing.T) {
	store := testStore(t)
	dir := t.TempDir()
	for _, out := range []struct{ flag, name string }{{"--geojson", "f.geojson"}, {"--png", "f.png"}, {"--mask", "f.tif"}, {"--geojson", "f.gpkg"}} {
		path := filepath.Join(dir, out.name)
		cmd := exec.Command("sh", "-c", `ulimit -f 0; exec "$0" "$@"`, os.Args[0], store, "--a", "2,2", "--b", "45,37", out.flag, path)
		cmd.Env = append(os.Environ(), "FRONTIERQ_MAIN=1")
		var se bytes.Buffer
		cmd.Stderr = &se
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Count(strings.TrimSpace(se.String()), "\n") > 0 {
			t.Errorf("%s on a full disk: %v, stderr %q; want exit 1 and one line", out.flag, err, se.String())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("%s on a full disk left %v", out.flag, left)
			for _, f := range left {
				os.Remove(f)
			}
		}
	}
}

// TestOutputsRefuseSpecialFiles: an output path naming a FIFO, a symbolic
// link or a folder is refused in one line and left as it was (renaming a
// new file over it would replace a device such as /dev/null).
func TestOutputsRefuseSpecialFiles(t *testing.T) {
	store := testStore(t)
	dir := t.TempDir()
	for _, kind := range []string{"fifo", "link", "folder"} {
		for _, out := range []struct{ flag, ext string }{{"--png", ".png"}, {"--mask", ".tif"}, {"--geojson", ".geojson"}} {
			path := filepath.Join(dir, kind+out.ext)
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(path, 0o644)
			case "link":
				err = os.Symlink(filepath.Join(dir, "elsewhere"+out.ext), path)
			default:
				err = os.Mkdir(path, 0o755)
			}
			if err != nil {
				t.Skipf("make a %s: %v", kind, err)
			}
			_, errOut, code := runCmd(store, "--a", "2,2", "--b", "45,37", out.flag, path)
			if code != 1 || !strings.Contains(errOut, "not a regular file") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("%s %s: exit %d: %s", out.flag, path, code, errOut)
			}
			if st, err := os.Lstat(path); err != nil || st.Mode().IsRegular() {
				t.Errorf("%s %s was replaced", out.flag, path)
			}
		}
	}
}

// TestPVSReportsCorruptTrees: a cell whose tree fails its checks (an index
// entry set to 2^63) is an error naming the quad, where frontierq pvs used
// to write the one Visible node it reads as.
func TestPVSReportsCorruptTrees(t *testing.T) {
	b, err := os.ReadFile(testStore(t))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("TIDX"))
	if i < 0 {
		t.Fatal("no TIDX section")
	}
	copy(b[i+32:], []byte{0, 0, 0, 0, 0, 0, 0, 0x80}) // quad 0: the cell (0,0)
	store := filepath.Join(t.TempDir(), "corrupt.pvs")
	if err := os.WriteFile(store, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCmd("pvs", store, "--at", "0,0", "-o", filepath.Join(t.TempDir(), "p.tif")); code != 1 || !strings.Contains(errOut, "quad 0") {
		t.Errorf("pvs on a corrupt index entry: exit %d: %s", code, errOut)
	}
}
