// Package docs holds the user guide; its test runs the guide's recipes.
package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recipes returns the sh blocks of the Markdown file at path, in order.
func recipes(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```sh":
			cur = new(strings.Builder)
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// TestRecipes runs every sh block of recipes.md, in order, in one folder
// standing for the repository's root (its entries linked in), with
// pvsbake and frontierq built from this checkout first on the PATH: each
// block must exit 0 (a cmp in a block checks bytes). -short (make test,
// whose CPU time must stay under 180 s) leaves out the slowest: the second
// engine's and the three budgets' bakes and their savings, the verifications, the coded,
// conservative, resumed and sharded bakes, the total viewshed, the Go
// module and the C, C# and Python libraries.
func TestRecipes(t *testing.T) {
	blocks := recipes(t, "recipes.md")
	if len(blocks) < 5 {
		t.Fatalf("%d sh blocks in recipes.md", len(blocks))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := sandbox(t, root)
	for i, b := range blocks {
		if testing.Short() && (strings.Contains(b, "--encoding coded") || strings.Contains(b, "bake-sharded") ||
			strings.Contains(b, "--engine unreal") || strings.Contains(b, "--budget 4MB,8MB,16MB") || strings.Contains(b, "frontierq savings mw-4MB") || strings.Contains(b, "frontierq verify") ||
			strings.Contains(b, "--los conservative") || strings.Contains(b, "--resume") ||
			strings.Contains(b, "--total-viewshed") || strings.Contains(b, "go mod init") ||
			strings.Contains(b, "make lib") || strings.Contains(b, "mcs ") || strings.Contains(b, "pip install")) {
			t.Logf("recipe %d: the slowest recipes run in make check", i+1)
			continue
		}
		cmd := shell(t, b)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("recipe %d failed: %v\n%s\n%s", i+1, err, b, out)
		}
		t.Logf("recipe %d (%.1f s):\n%s%s", i+1, time.Since(start).Seconds(), b, out)
	}
	// What the recipes leave in the root is ignored by git, so that
	// following them in a clone leaves no untracked files.
	made, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range made {
		if e.Type()&os.ModeSymlink != 0 {
			continue // the repository's own entries
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		check := exec.Command("git", "check-ignore", "-q", "--no-index", name)
		check.Dir = root
		if err := check.Run(); err != nil {
			t.Errorf("the recipes leave %s in the repository's root, which .gitignore does not ignore", name)
		}
	}
}

// TestEnginePages runs every sh block of the engine pages
// (engines/unity.md, engines/unreal.md, engines/godot.md), each page in
// its own folder
// standing for the repository's root, as TestRecipes does; make check
// only (they build the C library and compile C#).
func TestEnginePages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the C library and runs mono (make check)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"engines/unity.md", "engines/unreal.md", "engines/godot.md"} {
		t.Run(filepath.Base(page), func(t *testing.T) {
			blocks := recipes(t, page)
			if len(blocks) < 2 {
				t.Fatalf("%d sh blocks in %s", len(blocks), page)
			}
			dir, env := sandbox(t, root)
			for i, b := range blocks {
				for tool, pkg := range map[string]string{"mcs ": "mono-mcs", "godot3-server ": "godot3-server"} {
					if _, err := exec.LookPath(strings.TrimSpace(tool)); strings.Contains(b, tool) && err != nil {
						t.Skipf("no %s (make check installs %s)", strings.TrimSpace(tool), pkg)
					}
				}
				cmd := shell(t, b)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s block %d failed: %v\n%s\n%s", page, i+1, err, b, out)
				}
				t.Logf("%s block %d:\n%s%s", page, i+1, b, out)
			}
		})
	}
}
