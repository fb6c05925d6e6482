package frontiersets_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetFromEmptyModule: a new module elsewhere gets the toolkit by its
// module path — `go get` with a replace giving only the location of this
// checkout — and builds and runs an eight-line program that opens a store
// and grows a frontier set. It needs the module proxy (or a filled module
// cache) for the dependencies; -short skips it.
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
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The replaced module at the zero version: the proxy is never asked
	// for it, the replace gives its location.
	goCmd("get", "github.com/frontiersets/frontiersets@v0.0.0-00010101000000-000000000000")
	goCmd("build", "-o", "match", ".")
	out, err := exec.Command(filepath.Join(dir, "match"), store).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "false 32 768 <nil>" {
		t.Errorf("the program printed %q (%v), want the frontier set of ExampleOpen", out, err)
	}
}

// TestLibraryLinksNoCLI: the library (opening a store, frontiers, PVS,
// coordinates) builds without cgo and imports no command-line package —
// neither cobra nor internal/cli — so an embedding program links neither.
func TestLibraryLinksNoCLI(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".", "./grow", "./quadpvs", "./compress")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list without cgo: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "cobra") || strings.Contains(p, "pflag") || strings.HasSuffix(p, "/internal/cli") || strings.Contains(p, "progressbar") {
			t.Errorf("the library imports %s", p)
		}
	}
}
