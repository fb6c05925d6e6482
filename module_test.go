package frontiersets_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets"
)

// TestGetFromEmptyModule: a new module elsewhere gets the toolkit by its
// module path — `go get` with a replace giving only the location of this
// checkout — and builds and runs a short program that opens a store, grows
// a frontier set and places a player by longitude and latitude, both with
// cgo on and no GDAL to be found (PKG_CONFIG=/bin/false) and with cgo off:
// reading a store needs neither. It needs the module proxy (or a filled
// module cache) for the dependencies; -short skips it.
func TestGetFromEmptyModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program in a new module")
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	store, done := bakeDemo()
	defer done()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/match\n\ngo 1.26.8\n\nreplace github.com/frontiersets/frontiersets => " + repo + "\n",
		"main.go": `package main

import (
	"fmt"
	"os"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
)

func main() {
	s, err := frontiersets.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	res, err := s.Frontier([2]int{2, 2}, [2]int{45, 37}, grow.Options{})
	fmt.Println(res.MutuallyVisible, res.A.Points, res.B.Points, err)
	lon, lat, err := s.CellToLonLat(45, 37)
	fmt.Printf("%.7f %.7f %v\n", lon, lat, err)
	col, row, err := s.LonLatToCell(lon, lat)
	fmt.Println(col, row, err)
}
`,
	}
	// Seed go.sum with the project's hashes, so that only the module
	// proxy (or cache), not the checksum database, is needed here.
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s (%s): %v\n%s", strings.Join(args, " "), strings.Join(env, " "), err, out)
		}
		return string(out)
	}
	// The replaced module at the zero version: the proxy is never asked
	// for it, the replace gives its location.
	goCmd(nil, "get", "github.com/frontiersets/frontiersets@v0.0.0-00010101000000-000000000000")
	// The cell's centre in lon/lat, through GDAL here.
	s, err := frontiersets.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	ref := s.Georef()
	ref.LonLat = nil
	x, y, _ := ref.CellToMap(45, 37)
	lon, lat, err := ref.MapToLonLat(x, y)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("false 24 832 <nil>\n%.7f %.7f <nil>\n45 37 <nil>", lon, lat)
	for _, env := range [][]string{{"PKG_CONFIG=/bin/false", "CGO_ENABLED=1"}, {"CGO_ENABLED=0"}} {
		goCmd(env, "build", "-o", "match", ".")
		out, err := exec.Command(filepath.Join(dir, "match"), store).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("built with %s, the program printed %q (%v), want %q", env, out, err, want)
		}
	}
}

// TestLibraryLinksNoCLI: the library (opening a store, frontiers, PVS,
// coordinates) builds without cgo and imports no command-line package —
// neither cobra nor internal/cli — nor the GDAL binding (heightmap/gdal),
// so an embedding program links none of them.
func TestLibraryLinksNoCLI(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".", "./grow", "./quadpvs", "./compress", "./interest", "./cmd/libfrontiersets")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list without cgo: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "cobra") || strings.Contains(p, "pflag") || strings.HasSuffix(p, "/internal/cli") || strings.Contains(p, "progressbar") || strings.HasSuffix(p, "/heightmap/gdal") {
			t.Errorf("the library imports %s", p)
		}
	}
}
