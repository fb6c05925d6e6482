package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

func runCmd(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = cli.Report("pvsbake", run(args, &o, &e), &e)
	return o.String(), e.String(), code
}

// TestInfoRealDEMs: info of the two real DEMs, read from the repository
// (the NASADEM tile rebuilt around its committed crop, testdem.HGT, and the
// town DSM's committed 384² crop): sizes and spacings in metres, the
// tile's geographic spacing narrowing its columns at 44.5° N.
func TestInfoRealDEMs(t *testing.T) {
	hgt := testdem.HGT(t)
	dsm, _ := testdem.Path(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 100, Row: 100, Width: 384, Height: 384})
	tests := []struct {
		path   string
		args   []string
		w, h   int
		dx, dy float64
	}{
		{dsm, nil, 384, 384, 0.6096, 0.6096},
		{hgt, nil, 1201, 1201, 66.27, 92.60},
		{hgt, []string{"--window", "100,200,316,316"}, 316, 316, 65.9, 92.6},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			out, errOut, code := runCmd(append([]string{"info", tc.path}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got demInfo
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if got.Width != tc.w || got.Height != tc.h || !near(got.DxM, tc.dx) || !near(got.DyM, tc.dy) {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func near(a, b float64) bool { return a > b*0.99 && a < b*1.01 }

func TestInfoDemo(t *testing.T) {
	out, errOut, code := runCmd("info", "../../data/demo-hills.tif")
	if code != 0 || !strings.Contains(out, `"crs": "EPSG:32619"`) || errOut != "" {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	notRaster := filepath.Join(dir, "x.txt")
	os.WriteFile(notRaster, []byte("hello"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "no command"},
		{"unknown command", []string{"bake-a-cake"}, 2, "unknown command"},
		{"no DEM", []string{"info"}, 2, "one DEM"},
		{"bad flag", []string{"info", "x", "--frobnicate"}, 2, "frobnicate"},
		{"bad window", []string{"info", notRaster, "--window", "1,2"}, 2, "--window"},
		{"missing file", []string{"info", filepath.Join(dir, "none.tif")}, 1, "none.tif: no such file"},
		{"not a raster", []string{"info", notRaster}, 1, "x.txt: not a raster"},
		{"window outside", []string{"info", "../../data/demo-hills.tif", "--window", "200,200,100,100"}, 1, "window outside"},
		{"window overflowing int", []string{"info", "../../data/demo-hills.tif", "--window", "4611686018427388604,700,4611686018427387968,64"}, 1, "window outside"},
		// The mistakes of the usability audit: one line each, naming the
		// mistake and the help to read.
		{"bool with a value", []string{"bake", "d.tif", "-o", "x", "--budget", "1MB", "--quiet", "true"}, 2, "--quiet takes no separate value"},
		{"mistyped command", []string{"bkae", "d.tif"}, 2, "did you mean 'pvsbake bake'?"},
		{"mistyped flag", []string{"bake", "d.tif", "-o", "x", "--budgte", "1MB"}, 2, "did you mean --budget?"},
		{"bad integer", []string{"bake", "d.tif", "-o", "x", "--budget", "1MB", "-j", "many"}, 2, `--workers "many": want an integer`},
		{"bad duration", []string{"bake", "d.tif", "-o", "x", "--budget", "1MB", "--progress", "often"}, 2, "want a duration"},
		{"total viewshed of a resumed bake", []string{"bake", "d.tif", "-o", "x", "--budget", "1MB", "--total-viewshed", "tv.tif", "--resume", "dir"}, 2, "--total-viewshed needs a whole bake"},
		{"budget and nodes", []string{"bake", "d.tif", "-o", "x", "--budget", "1MB", "--nodes", "9"}, 2, "either --budget or --nodes"},
		{"two DEMs", []string{"bake", "a.tif", "b.tif", "-o", "x", "--budget", "1MB"}, 2, `bake takes one DEM, got 2: "a.tif" "b.tif"`},
		{"join without parts", []string{"join", "-o", "x"}, 2, "join takes one or more PART"},
		{"share without -o", []string{"share", "s.pvs", "--budget", "1MB"}, 2, "share needs -o OUT"},
		{"viewshed without --at", []string{"viewshed", "d.tif", "-o", "x.tif"}, 2, "viewshed needs the observer (--at, --at-xy, --at-lonlat or --at-world)"},
		{"synth with an argument", []string{"synth", "x", "-o", "y.tif"}, 2, "synth takes no arguments"},
		{"unknown model", []string{"viewshed", "d.tif", "--at", "1,1", "-o", "x.tif", "--los", "exact"}, 2, `--los "exact": want sector or conservative`},
		{"unknown kernels", []string{"bake", "d.tif", "-o", "x", "--budget", "1MB", "--kernels", "sse9"}, 2, `--kernels "sse9": want auto, avx512, avx2 or scalar`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d (want %d), stderr:\n%s", code, tc.code, errOut)
			}
			if n := strings.Count(errOut, "\n"); tc.code == 2 && n != 1 {
				t.Errorf("usage error in %d lines:\n%s", n, errOut)
			}
			if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
				t.Errorf("stack trace on stderr:\n%s", errOut)
			}
		})
	}
}

// TestHelpAndVersion: help in every form exits 0 on stdout, for the
// program and every command; --version names the program.
func TestHelpAndVersion(t *testing.T) {
	cmds := []string{"info", "bake", "join", "share", "allocate", "stat", "viewshed", "synth", "completion"}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errOut, code := runCmd(args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Available Commands") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		for _, c := range cmds {
			out, errOut, code := runCmd(append([]string{c}, args...)...)
			if args[0] == "help" {
				out, errOut, code = runCmd("help", c)
			}
			if code != 0 || errOut != "" || !strings.Contains(out, "Usage:") {
				t.Errorf("%s %v: exit %d\n%s\n%s", c, args, code, out, errOut)
			}
		}
	}
	if out, _, code := runCmd("--version"); code != 0 || !strings.HasPrefix(out, "pvsbake ") {
		t.Errorf("--version: exit %d: %q", code, out)
	}
	if out, _, code := runCmd("completion", "bash"); code != 0 || !strings.Contains(out, "__start_pvsbake") {
		t.Errorf("completion bash: exit %d", code)
	}
}

func TestSynthWritesTerrain(t *testing.T) {
	p := filepath.Join(t.TempDir(), "u.tif")
	if _, errOut, code := runCmd("synth", "--kind", "urban", "--size", "40", "--cell-size", "2", "-o", p); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, errOut, code := runCmd("info", p)
	if code != 0 || !strings.Contains(out, `"dx_m": 2`) || !strings.Contains(out, `"width": 40`) {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}

// TestJSONReports: synth, viewshed, bake and stat print one JSON object
// with --json, and they agree on what was written.
func TestJSONReports(t *testing.T) {
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
	dem := filepath.Join(dir, "h.tif")
	if m := jsonOut("synth", "--size", "24", "-o", dem, "--json"); m["width"].(float64) != 24 || m["path"] != dem {
		t.Errorf("synth: %v", m)
	}
	vs := jsonOut("viewshed", dem, "--at", "3,4", "-o", filepath.Join(dir, "v.tif"), "--sectors", "64", "--json")
	if obs := vs["observer"].(map[string]any); obs["col"].(float64) != 3 || obs["row"].(float64) != 4 || obs["lon"] == nil || vs["cells"].(float64) != 576 {
		t.Errorf("viewshed: %v", vs)
	}
	store := filepath.Join(dir, "h.pvs")
	b := jsonOut("bake", dem, "-o", store, "--nodes", "30", "--sectors", "64", "-q", "--json")
	stores := b["stores"].([]any)
	st := jsonOut("stat", store, "--json")
	if len(stores) != 1 || stores[0].(map[string]any)["path"] != store || stores[0].(map[string]any)["nodes_total"] != st["nodes_total"] || b["points"].(float64) != 576 {
		t.Errorf("bake %v, stat %v", b, st)
	}
}

// TestOutputsNeverOverwriteInputs: an output naming an input, directly or
// through a link, or another output, is refused before any work, and the
// input is left as it was.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	dir := t.TempDir()
	dem := filepath.Join(dir, "d.tif")
	if _, errOut, code := runCmd("synth", "--size", "16", "-o", dem); code != 0 {
		t.Fatal(errOut)
	}
	store := filepath.Join(dir, "s.pvs")
	if _, errOut, code := runCmd("bake", dem, "-o", store, "--nodes", "20", "--sectors", "32", "-q"); code != 0 {
		t.Fatal(errOut)
	}
	p0, p1 := filepath.Join(dir, "p0"), filepath.Join(dir, "p1")
	for i, p := range []string{p0, p1} {
		if _, errOut, code := runCmd("bake", dem, "-o", p, "--nodes", "20", "--sectors", "32", "-q", "--shard", fmt.Sprintf("%d/2", i)); code != 0 {
			t.Fatal(errOut)
		}
	}
	link := filepath.Join(dir, "link.tif")
	if err := os.Symlink(dem, link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(dem)
	beforeStore, _ := os.ReadFile(store)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bake", dem, "-o", dem, "--nodes", "20"}, "-o " + dem + " is the input DEM"},
		{[]string{"bake", dem, "-o", link, "--nodes", "20"}, "is the input DEM"},
		{[]string{"share", store, "-o", store, "--budget", "1MB"}, "is the input STORE"},
		{[]string{"viewshed", dem, "--at", "3,3", "-o", dem}, "is the input DEM"},
		{[]string{"viewshed", dem, "--at", "3,3", "-o", filepath.Join(dir, "v.tif"), "--png", filepath.Join(dir, "v.tif")}, "-o and --png both write"},
		{[]string{"join", "-o", p0, p0, p1}, "is the input PART"},
	} {
		_, errOut, code := runCmd(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
	after, _ := os.ReadFile(dem)
	afterStore, _ := os.ReadFile(store)
	if !bytes.Equal(before, after) || !bytes.Equal(beforeStore, afterStore) {
		t.Error("an input changed")
	}
}

// TestConservativeBake: the region model is the default, each model is
// recorded in the store's parameters with its version, --los conservative
// and --los sector bake the point models, and the shards of a conservative
// and a sector bake do not join.
func TestConservativeBake(t *testing.T) {
	dir := t.TempDir()
	dem := filepath.Join(dir, "h.tif")
	if _, errOut, code := runCmd("synth", "--size", "24", "-o", dem); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct{ flags, want []string }{
		{nil, []string{`"los": "region"`, `"los_version": 5`}},
		{[]string{"--los", "conservative"}, []string{`"los": "conservative"`, `"los_version": 1`}},
		{[]string{"--los", "sector"}, []string{`"los": "sector"`, `"los_version": 1`}},
		{[]string{"--los", "region"}, []string{`"los": "region"`, `"los_version": 5`}},
		{[]string{"--los", "region-v3"}, []string{`"los": "region"`, `"los_version": 3`}},
		{[]string{"--los", "region-v2"}, []string{`"los": "region"`, `"los_version": 2`}},
		{[]string{"--los", "region-v4"}, []string{`"los": "region"`, `"los_version": 4`}},
		{[]string{"--los", "region-v5"}, []string{`"los": "region"`, `"los_version": 5`}},
	} {
		store := filepath.Join(dir, "c.pvs")
		if _, errOut, code := runCmd(append([]string{"bake", dem, "-o", store, "--nodes", "30", "--sectors", "64", "-q"}, tc.flags...)...); code != 0 {
			t.Fatal(errOut)
		}
		out, _, _ := runCmd("stat", store)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stat has no %s: %s", tc.flags, w, out)
			}
		}
		if (len(tc.flags) == 0 || tc.flags[1] != "conservative") && strings.Contains(out, `"conservative"`) {
			t.Errorf("%v: stat: %s", tc.flags, out)
		}
	}
	if _, errOut, code := runCmd("bake", dem, "-o", filepath.Join(dir, "r.pvs"), "--nodes", "30", "--curvature"); code != 2 || !strings.Contains(errOut, "region model does not take Earth curvature") {
		t.Errorf("--curvature under the default model: exit %d: %s", code, errOut)
	}
	p0, p1 := filepath.Join(dir, "p0"), filepath.Join(dir, "p1")
	for i, los := range []string{"conservative", "sector"} {
		if _, errOut, code := runCmd("bake", dem, "-o", []string{p0, p1}[i], "--nodes", "30", "--sectors", "64", "--los", los, "-q", "--shard", fmt.Sprintf("%d/2", i)); code != 0 {
			t.Fatal(errOut)
		}
	}
	if _, errOut, code := runCmd("join", "-o", filepath.Join(dir, "j.pvs"), p0, p1); code != 1 || !strings.Contains(errOut, "visibility model (conservative v1 vs sector v1)") {
		t.Errorf("join of a conservative and a sector shard: exit %d: %s", code, errOut)
	}
}

// TestForcedKernels: --kernels (or FRONTIERSETS_KERNELS) forces the block
// engine's kernels; each set this build and CPU run bakes the same store,
// and forcing a set where it cannot run is a one-line usage error.
func TestForcedKernels(t *testing.T) {
	dir := t.TempDir()
	dem := filepath.Join(dir, "h.tif")
	if _, errOut, code := runCmd("synth", "--size", "24", "-o", dem); code != 0 {
		t.Fatal(errOut)
	}
	var stores [][]byte
	var names []string
	for _, k := range []string{"scalar", "avx512", "avx2"} {
		out := filepath.Join(dir, k+".pvs")
		_, errOut, code := runCmd("bake", dem, "-o", out, "--nodes", "30", "--sectors", "64", "--progress", "0", "--kernels", k)
		if k != "scalar" && horizon.CheckKernels(k) != nil {
			if code != 2 || !strings.Contains(errOut, "--kernels "+k+": this") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("--kernels %s where it cannot run: exit %d: %q", k, code, errOut)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("--kernels %s: %s", k, errOut)
		}
		// The bake's own option, not the process's default: the
		// projection names the kernels it timed.
		if !strings.Contains(errOut, k+" kernels)") || horizon.SIMD() == "" {
			t.Errorf("--kernels %s: the bake says %q", k, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		stores, names = append(stores, b), append(names, k)
	}
	for i := 1; i < len(stores); i++ {
		if !bytes.Equal(stores[i], stores[0]) {
			t.Errorf("the %s and %s kernels baked other stores", names[i], names[0])
		}
	}
}

// TestPVSCellBake: --pvs-cell bakes the region model on PVS cells of k×k
// heightmap cells — the store's grid, recorded with the heightmap's window
// and k — flat, coded, resumed and sharded alike (the resumed and joined
// stores the same bytes as the whole bake); frontierq verify --exact
// checks positions on the heightmap; readers that would recompute PVSs
// from the store's own elevations refuse; and bad values are usage errors
// before any bake.
func TestPVSCellBake(t *testing.T) {
	dir := t.TempDir()
	dem := filepath.Join(dir, "h.tif")
	if _, errOut, code := runCmd("synth", "--size", "40", "-o", dem); code != 0 { // 10 m cells
		t.Fatal(errOut)
	}
	base := []string{"bake", dem, "--los", "region", "--pvs-cell", "30", "--sectors", "64", "--nodes", "40", "-q"}
	whole := filepath.Join(dir, "w.pvs")
	if _, errOut, code := runCmd(append(base, "-o", whole)...); code != 0 {
		t.Fatal(errOut)
	}
	out, _, _ := runCmd("stat", whole)
	for _, w := range []string{`"width": 14`, `"height": 14`, `"dx_m": 30`, `"pvs_cell": 3`, `"los": "region"`} {
		if !strings.Contains(out, w) {
			t.Errorf("stat has no %s: %s", w, out)
		}
	}
	resumed := filepath.Join(dir, "r.pvs")
	if _, errOut, code := runCmd(append(base, "-o", resumed, "--resume", filepath.Join(dir, "tiles"))...); code != 0 {
		t.Fatal(errOut)
	}
	p0, p1 := filepath.Join(dir, "p0"), filepath.Join(dir, "p1")
	for i, p := range []string{p0, p1} {
		if _, errOut, code := runCmd(append(base, "-o", p, "--shard", fmt.Sprintf("%d/2", i))...); code != 0 {
			t.Fatal(errOut)
		}
	}
	joined := filepath.Join(dir, "j.pvs")
	if _, errOut, code := runCmd("join", "-o", joined, p0, p1); code != 0 {
		t.Fatal(errOut)
	}
	want, _ := os.ReadFile(whole)
	for _, p := range []string{resumed, joined} {
		if got, _ := os.ReadFile(p); !bytes.Equal(got, want) {
			t.Errorf("%s differs from the whole bake", filepath.Base(p))
		}
	}
	coded := filepath.Join(dir, "c.pvs")
	cargs := append(slices.Clone(base[:len(base)-3]), "--budget", "2MB", "--encoding", "coded", "-q", "-o", coded)
	if _, errOut, code := runCmd(cargs...); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--pvs-cell", "25"}, "25 m is not a whole multiple of the heightmap's 10 m cells: want 10, 20, 40 m"},
		{[]string{"--pvs-cell", "500"}, "leave 1×1 of them on the 40×40 heightmap; want at least 2×2"},
		{[]string{"--pvs-cell", "-5"}, "--pvs-cell -5: want a positive number of metres"},
	} {
		args := append(slices.Clone(base), "-o", filepath.Join(dir, "bad.pvs"))
		args[5] = tc.args[1]
		if _, errOut, code := runCmd(args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
	if _, errOut, code := runCmd("bake", dem, "--pvs-cell", "20", "--los", "conservative", "--nodes", "40", "-o", filepath.Join(dir, "bad.pvs")); code != 2 || !strings.Contains(errOut, "with --los region") {
		t.Errorf("--pvs-cell with --los conservative: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.pvs")); err == nil {
		t.Error("a refused bake wrote its output")
	}
}

// TestPVSCellRAW: --pvs-cell on a RAW heightmap counts in the metres of
// --cell-size, as on a georeferenced raster: 64×64 cells of 80 m at 160 m
// PVS cells are 32×32 of them (it was refused as "1×1", the check taking
// metres for cells), and a RAW too large for memory at its PVS cells is
// refused before it is read, as the same GeoTIFF is (an 8000² RAW at
// 80 m passed a guard that took its cells for 1 m ones, then ran out of
// memory; heightmap's TestRaw16 checks the spacing the guard sees).
func TestPVSCellRAW(t *testing.T) {
	dir := t.TempDir()
	raw := "../../data/demo-unity.raw"
	out := filepath.Join(dir, "u.pvs")
	if _, errOut, code := runCmd("bake", raw, "--cell-size", "80", "--height-range", "0,2000", "--window", "0,0,64,64",
		"--pvs-cell", "160", "--sectors", "64", "--nodes", "40", "-q", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st, _, _ := runCmd("stat", out); !strings.Contains(st, `"width": 32`) || !strings.Contains(st, `"pvs_cell": 2`) {
		t.Errorf("stat: %s", st)
	}
	// A sparse 100000² RAW (20 GB of samples, none stored): 50000² PVS
	// cells, refused by the memory guard as the same GeoTIFF is.
	huge := filepath.Join(dir, "huge.raw")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 * 100000 * 100000); err != nil {
		f.Close()
		t.Skipf("no sparse 20 GB file here: %v", err)
	}
	f.Close()
	_, errOut, code := runCmd("bake", huge, "--cell-size", "80", "--height-range", "0,2000", "--pvs-cell", "160", "--budget", "1GB", "-o", filepath.Join(dir, "h.pvs"))
	if code != 1 || !strings.Contains(errOut, "100000×100000 cells need about") {
		t.Errorf("a 100000² RAW at 160 m PVS cells: exit %d: %s", code, errOut)
	}
}
