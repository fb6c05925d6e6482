package main

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// buildLib builds the shared library and its header into dir, bakes the
// demo window into dir/t.pvs and returns the store's path. A C compiler
// and the module's dependencies are needed; -short skips the tests.
func buildLib(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the C library")
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	root, _ := filepath.Abs("../..")
	// Built as on a machine without GDAL: the library reads stores only.
	lib := filepath.Join(dir, "libfrontiersets.so")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "./cmd/libfrontiersets")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PKG_CONFIG=/bin/false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, out)
	}
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	needed, err := f.ImportedLibraries()
	f.Close()
	if err != nil || len(needed) != 1 || !strings.HasPrefix(needed[0], "libc.so") {
		t.Errorf("the library needs %v (%v), want libc alone", needed, err)
	}
	h, err := os.ReadFile("frontiersets.h")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(h), "libgdal") { // it said the library links it
		t.Error("frontiersets.h names libgdal; the library links libc alone")
	}
	if err := os.WriteFile(filepath.Join(dir, "frontiersets.h"), h, 0o644); err != nil {
		t.Fatal(err)
	}
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		t.Fatal(err)
	}
	// In Unity's world at (1000, 2000), for the world-position calls.
	if dem.Engine, err = heightmap.NewEngineFrame("unity", dem.Dx, dem.Dy, [2]float64{1000, 2000}, false, dem.Height); err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors = 256
	store := filepath.Join(dir, "t.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 40}}}}); err != nil {
		t.Fatal(err)
	}
	return store
}

// compileC compiles C sources against the library in dir.
func compileC(t *testing.T, dir, out string, src ...string) string {
	t.Helper()
	bin := filepath.Join(dir, out)
	// No fused multiply-adds (GCC contracts them where the CPU has them):
	// the examples' arithmetic is then the Go tests' bit for bit.
	args := append([]string{"-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-I", dir}, src...)
	args = append(args, "-L", dir, "-lfrontiersets", "-lpthread", "-o", bin)
	if b, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return bin
}

func runC(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestCExample: examples/c/frontier.c, compiled against the library,
// prints the frontier set and the PVS the Go package gives.
func TestCExample(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	bin := compileC(t, dir, "frontier", "../../examples/c/frontier.c")
	s, err := frontiersets.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range examplePairs {
		out, code := runC(t, dir, bin, store, fmt.Sprint(p[0]), fmt.Sprint(p[1]), fmt.Sprint(p[2]), fmt.Sprint(p[3]))
		if want := exampleOutput(t, s, store, p); code != 0 || out != want {
			t.Errorf("frontier %v: exit %d\n%s\nwant\n%s", p, code, out, want)
		}
	}
	if out, code := runC(t, dir, bin, store, "x", "1", "2", "3"); code != 2 || !strings.HasPrefix(out, "usage:") {
		t.Errorf("bad cell: exit %d, %q", code, out)
	}
	if out, code := runC(t, dir, bin, filepath.Join(dir, "none.pvs"), "1", "1", "2", "3"); code != 1 || strings.Count(out, "\n") != 1 {
		t.Errorf("missing store: exit %d, %q", code, out)
	}
}

// examplePairs are the players the examples are run with on the demo store.
var examplePairs = [][4]int{{2, 2, 45, 37}, {20, 20, 21, 20}, {0, 39, 47, 0}}

// exampleOutput is what examples/c/frontier.c and examples/csharp print for
// players p on store s (at path), from the Go packages.
func exampleOutput(t *testing.T, s *frontiersets.Store, path string, p [4]int) string {
	t.Helper()
	res, err := s.Frontier([2]int{p[0], p[1]}, [2]int{p[2], p[3]}, grow.Options{MaxSteps: 125})
	if err != nil {
		t.Fatal(err)
	}
	want := "mutually visible\n"
	if !res.MutuallyVisible {
		want = fmt.Sprintf("A %d points in %d quads, B %d points in %d quads%s\n", res.A.Points, len(res.A.Quads), res.B.Points, len(res.B.Quads),
			map[bool]string{true: " (stopped at 125 steps, as frontierq --max-steps 125)"}[res.Truncated])
	}
	n := pvsCounts(t, path, p[0], p[1])
	return want + fmt.Sprintf("PVS of A: %d visible, %d unknown, %d hidden\n", n[quadpvs.Visible], n[quadpvs.Unknown], n[quadpvs.Hidden])
}

// pvsCounts counts the cells of each status in the PVS of cell (col, row)
// of the store at path, read from its hierarchy (not through Store.PVS,
// which the C library calls).
func pvsCounts(t *testing.T, path string, col, row int) map[quadpvs.Status]int {
	t.Helper()
	cs, err := compress.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tr := cs.Hierarchy.PVS(cs.Hierarchy.QuadIndex(0, col, row))
	n := map[quadpvs.Status]int{}
	for r := range cs.Height {
		for c := range cs.Width {
			n[tr.CellStatus(cs.Hierarchy.G, c, r)]++
		}
	}
	return n
}

// unityRuntime is the Unity package's C# (bindings/unity), which the C#
// example and WorldCheck are compiled with.
const unityRuntime = "../../bindings/unity/Runtime/Frontiersets.cs"

// TestCSharp: examples/csharp/Frontier.cs, compiled with mono's mcs and
// run with mono over the library, prints what the C example prints.
func TestCSharp(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	if _, err := exec.LookPath("mcs"); err != nil {
		t.Skip("no mcs (make check installs mono-mcs and mono-runtime)")
	}
	exe := filepath.Join(dir, "Frontier.exe")
	if out, err := exec.Command("mcs", "../../examples/csharp/Frontier.cs", unityRuntime, "-out:"+exe).CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	s, err := frontiersets.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range examplePairs {
		out, code := runC(t, dir, "mono", exe, store, fmt.Sprint(p[0]), fmt.Sprint(p[1]), fmt.Sprint(p[2]), fmt.Sprint(p[3]))
		if want := exampleOutput(t, s, store, p); code != 0 || out != want {
			t.Errorf("Frontier.exe %v: exit %d\n%s\nwant\n%s", p, code, out, want)
		}
	}
	if out, code := runC(t, dir, "mono", exe, filepath.Join(dir, "none.pvs"), "1", "1", "2", "3"); code != 1 || !strings.Contains(out, "no such file") {
		t.Errorf("missing store: exit %d, %q", code, out)
	}
	// The World helpers' positions and exceptions (testdata/WorldCheck.cs).
	wc := filepath.Join(dir, "WorldCheck.exe")
	if out, err := exec.Command("mcs", unityRuntime, "testdata/WorldCheck.cs", "-out:"+wc).CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	want := "position 12.37 20.80 cell 1120.00 2210.00\noff the terrain: bounds named\ninterest: 2 exits\nclosed: ArgumentException\n"
	if out, code := runC(t, dir, "mono", wc, store); code != 0 || out != want {
		t.Errorf("WorldCheck.exe: exit %d\n%s\nwant\n%s", code, out, want)
	}
	// The walkers of TestCInterest through C#: Go's decisions tick for tick.
	rp := filepath.Join(dir, "Replay.exe")
	if out, err := exec.Command("mcs", unityRuntime, "testdata/Replay.cs", "-out:"+rp).CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	traj, replay := walkers(t, dir, store)
	lines := strings.SplitAfter(replay, "\n")
	replay = strings.Join(lines[1:len(lines)-14], "") // interest.c's own calls' codes aside
	if out, code := runC(t, dir, "mono", rp, store, traj); code != 0 || out != replay {
		t.Errorf("Replay.exe: exit %d; C# and interest.Joint differ:\n%s", code, firstDiff(out, replay))
	}
}

// TestCHostile: NULL pointers, closed or unknown handles, cells off the
// grid, small buffers, a truncated store, a folder and a store cut while
// open (FS_EIO) give error codes with a message, never a crash; two handles
// of one file (which share its store) close one at a time.
func TestCHostile(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(dir, "hostile.pvs")
	if err := os.WriteFile(hostile, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pvs") // cut to 4 KiB while open
	if err := os.WriteFile(cut, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := compileC(t, dir, "hostile", "testdata/hostile.c")
	out, code := runC(t, dir, bin, store, hostile, cut)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkHostile(t, out, false)
}

// checkHostile checks testdata/hostile.c's output: each call's code and
// message. Where the system refuses to cut a mapped file (Windows), the
// calls after the cut are not made.
func checkHostile(t *testing.T, out string, cutRefused bool) {
	t.Helper()
	want := map[string]int{
		"open-null": 1, "open-null-store": 1, "open-missing": 4, "open-hostile": 5, "open-dir": 4, "open": 0,
		"info-null": 1, "info-handle": 2, "frontier-outside": 3, "frontier-far": 3, "frontier-same": 0,
		"frontier-options": 1, "frontier-null-res": 1, "frontier-small-buffer": 6, "pvs-small-mask": 6, "pvs-null": 1,
		"map-far": 3, "lonlat-bad": 3, "world": 0, "world-outside": 3, "world-null": 1, "cell-to-world": 0, "cell-to-world-outside": 3, "position": 0, "position-outside": 3, "position-nan": 3, "position-null": 1, "cell-null": 1, "null-err": 3, "close": 0, "close-again": 2, "after-close": 2,
		"open-twice-1": 0, "open-twice-2": 0, "close-first": 0, "frontier-second": 0, "first-closed": 2, "close-second": 0,
		"reopen": 0, "frontier-reopened": 0, "close-reopened": 0,
		"open-cut": 0, "info-cut": 0, "pvs-cut": 4, "frontier-cut": 4, "close-cut": 0,
		"open-over": 0, "info-over": 0, "close-over": 0,
	}
	// Reads of a store rewritten in place under its handle: an answer, or
	// FS_EIO or FS_EFORMAT — what matters is that the program goes on.
	over := map[string]bool{"pvs-over": true, "frontier-over": true}
	if cutRefused {
		delete(want, "pvs-cut")
		delete(want, "frontier-cut")
		if !strings.Contains(out, "cut-refused\n") {
			t.Errorf("the store was cut under a mapping where the system refuses it:\n%s", out)
		}
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if f[0] == "cut-refused" {
			if !cutRefused {
				t.Errorf("truncate refused: %s", out)
			}
			continue
		}
		if f[0] == "same-cell" { // two players in one cell see each other
			if line != "same-cell mutually visible 1" {
				t.Errorf("fs_frontier of one cell for both: %s", line)
			}
			continue
		}
		if f[0] == "position-cell" {
			if f[1] != "12" || f[2] != "21" {
				t.Errorf("fs_position_to_cell(12.37, 20.8): %s, want cell 12 21", line)
			}
			continue
		}
		if f[0] == "world-position" || f[0] == "cell-world" {
			want := map[string]string{"world-position": "12.37 20.80", "cell-world": "1120.00 2210.00"}[f[0]]
			if strings.Join(f[1:], " ") != want {
				t.Errorf("%s: %s, want %s", f[0], line, want)
			}
			continue
		}
		if f[0] == "needed" {
			if f[1] == "0" && f[2] == "0" {
				t.Errorf("FS_ESPACE without the sizes needed: %s", line)
			}
			continue
		}
		var rc int
		fmt.Sscan(f[1], &rc)
		if over[f[0]] {
			if rc != 0 && rc != 4 && rc != 5 {
				t.Errorf("%s: code %d, want 0, 4 or 5 (%s)", f[0], rc, line)
			}
			t.Logf("on the store rewritten in place: %s", line)
			delete(over, f[0])
			continue
		}
		w, ok := want[f[0]]
		if !ok || rc != w {
			t.Errorf("%s: code %d, want %d (%s)", f[0], rc, w, line)
		}
		if rc != 0 && f[0] != "null-err" && len(f) < 3 {
			t.Errorf("%s: code %d without a message", f[0], rc)
		}
		seen++
	}
	if seen != len(want) || len(over) > 0 {
		t.Errorf("%d calls reported, want %d (and the reads of the rewritten store):\n%s", seen, len(want), out)
	}
}

// TestCThreads: eight threads query one store while it is closed under
// them.
func TestCThreads(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	bin := compileC(t, dir, "threads", "testdata/threads.c")
	if out, code := runC(t, dir, bin, store); code != 0 || !strings.HasPrefix(out, "ok ") {
		t.Errorf("exit %d: %s", code, out)
	}
}

// TestPython installs the Python package (python/) into a new venv made
// with --system-site-packages (Debian's numpy, setuptools, pytest), the way
// its docs say, runs its pytest tests against the Go package's answers on
// the demo store, and runs examples/python/pvs_geotiff.py.
func TestPython(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy, setuptools, pytest, venv").Run(); err != nil {
		t.Skipf("%s lacks numpy, setuptools, pytest or venv (make check installs python3-numpy, python3-setuptools, python3-pytest, python3-venv): %v", py, err)
	}
	root, _ := filepath.Abs("../..")
	venv := filepath.Join(dir, "venv")
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(nil, py, "-m", "venv", "--system-site-packages", venv)
	run([]string{"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1"}, filepath.Join(venv, "bin", "pip"), "install", "-q", "--no-build-isolation", "./python")

	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(dir, "hostile.pvs")
	if err := os.WriteFile(hostile, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := frontiersets.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, bb := [2]int{2, 2}, [2]int{45, 37}
	res, err := s.Frontier(a, bb, grow.Options{MaxSteps: 125})
	if err != nil || res.MutuallyVisible {
		t.Fatalf("the demo pair: %v %v", res.MutuallyVisible, err)
	}
	quads := [][3]int{}
	for _, q := range res.A.Quads {
		quads = append(quads, [3]int{q.Col(), q.Row(), q.Size()})
	}
	n := pvsCounts(t, store, a[0], a[1])
	width, height := s.Size()
	want, _ := json.Marshal(map[string]any{"width": width, "height": height, "a": a, "b": bb,
		"a_points": res.A.Points, "b_points": res.B.Points, "a_quads": quads,
		"pvs": []int{n[quadpvs.Visible], n[quadpvs.Unknown], n[quadpvs.Hidden]}})
	traj, replay := walkers(t, dir, store)
	replayWant := filepath.Join(dir, "walkers-want.txt")
	if err := os.WriteFile(replayWant, []byte(replay), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"FRONTIERSETS_TEST_STORE=" + store, "FRONTIERSETS_TEST_HOSTILE=" + hostile, "FRONTIERSETS_TEST_WANT=" + string(want),
		"FRONTIERSETS_TEST_WALKERS=" + traj, "FRONTIERSETS_TEST_WALKERS_WANT=" + replayWant}
	out := run(env, filepath.Join(venv, "bin", "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests")
	t.Log(strings.TrimSpace(out))

	if err := exec.Command(py, "-c", "from osgeo import gdal").Run(); err != nil {
		t.Logf("no example run: python3-gdal is not installed")
		return
	}
	dem := filepath.Join(dir, "dem.tif")
	run(nil, "gdal_translate", "-q", "-srcwin", "40", "150", "48", "40", "data/demo-hills.tif", dem)
	tif := filepath.Join(dir, "pvs.tif")
	got := run(nil, filepath.Join(venv, "bin", "python"), "examples/python/pvs_geotiff.py", store, dem, "2", "2", tif)
	if !strings.Contains(got, fmt.Sprintf("%d visible cells", n[quadpvs.Visible])) {
		t.Errorf("the example printed %q, want %d visible cells", got, n[quadpvs.Visible])
	}
	g, err := heightmap.Load(tif, heightmap.Options{})
	if err != nil || !g.HasGeoTransform {
		t.Fatalf("the example's GeoTIFF: %v", err)
	}
}

// TestCInterest replays 256 walkers over 600 ticks through the C library's
// interest manager (testdata/interest.c) and through interest.Joint in Go
// on the same store and positions: tick for tick the same exits, open
// pairs, packets and send lists. A store with a manager cannot be closed
// until the manager is freed; a player off the grid is FS_ERANGE.
// TestPython and TestCSharp replay the same walkers through their bindings.
func TestCInterest(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	bin := compileC(t, dir, "interest", "testdata/interest.c")
	traj, want := walkers(t, dir, store)
	out, code := runC(t, dir, bin, store, traj)
	if code != 0 || out != want {
		t.Errorf("exit %d; the C manager and interest.Joint differ:\n%s", code, firstDiff(out, want))
	}
}

// walkers writes dir/walkers.txt, 256 walkers' positions (fractional
// cells) over 600 ticks on store — "players ticks", then a line "x y" per
// player and tick — and returns its path and what interest.Joint decides on
// them, as testdata/interest.c prints it: each tick "tick T exits E open O
// packets P", then "I: J …" for each player I that sends to players J, and
// the closing calls' codes.
func walkers(t *testing.T, dir, store string) (path, want string) {
	t.Helper()
	s, err := frontiersets.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, h := s.Size()
	const n, ticks = 256, 600
	rng := rand.New(rand.NewPCG(3, 3))
	pos := make([][2]float64, n)
	for i := range pos {
		pos[i] = [2]float64{rng.Float64() * float64(w-1), rng.Float64() * float64(h-1)}
	}
	var traj strings.Builder
	fmt.Fprintf(&traj, "%d %d\n", n, ticks)
	jt, err := interest.NewJoint(s.Grower(), n, interest.JointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString("close-busy 1\n")
	players := make([]interest.Player, n)
	for tick := range ticks {
		for i := range pos {
			for k := range 2 {
				lim := float64([2]int{w, h}[k]) - 1
				pos[i][k] = min(max(pos[i][k]+rng.Float64()*1.6-0.8, 0), lim)
			}
			fmt.Fprintf(&traj, "%.17g %.17g\n", pos[i][0], pos[i][1])
			col, row, err := s.PositionCell(pos[i][0], pos[i][1])
			if err != nil {
				t.Fatal(err)
			}
			players[i] = interest.Player{Col: col, Row: row, FCol: pos[i][0] - float64(col), FRow: pos[i][1] - float64(row)}
		}
		r, err := jt.Tick(players)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "tick %d exits %d open %d packets %d\n", tick, r.Exits, r.Open, r.Packets())
		for i := range n {
			var to []string
			for j := range n {
				if j != i && jt.Sends(i, j) {
					to = append(to, fmt.Sprint(j))
				}
			}
			if len(to) > 0 {
				fmt.Fprintf(&out, "%d: %s\n", i, strings.Join(to, " "))
			}
		}
	}
	if sends := strings.Count(out.String(), ":"); sends < ticks {
		t.Fatalf("the walkers send to one another %d times in %d ticks: the replay tests too little", sends, ticks)
	}
	fmt.Fprintf(&out, "add 0 %d\ntick-joined 0 exits %d\ntick-stale-count 1\nremove 0\ntick-left 0\nremove-outside 3\ntick-world 0\ntick-world-outside 3 bounds named\n", n, n+1)
	out.WriteString("tick-outside 0\ntick-off-grid 3\nfree 0\nfree-again 2\nclose 0\n")
	path = filepath.Join(dir, "walkers.txt")
	if err := os.WriteFile(path, []byte(traj.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, out.String()
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: C %q, Go %q", i+1, a, b)
		}
	}
	return "(the same)"
}
