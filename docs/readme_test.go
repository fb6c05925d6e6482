package docs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
)

// transcript is a README sh block written as a session: commands after
// "$ ", each followed by the output it documents.
type transcript struct {
	cmds []string
	outs [][]string
}

// transcripts returns the sh blocks of the Markdown file at path whose
// first line starts with "$ ".
func transcripts(t *testing.T, path string) []transcript {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []transcript
	var cur *transcript
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && line == "```sh":
			in, cur = true, nil
		case in && line == "```":
			in = false
			if cur != nil {
				all = append(all, *cur)
			}
		case in && strings.HasPrefix(line, "$ "):
			if cur == nil {
				cur = &transcript{}
			}
			cur.cmds = append(cur.cmds, strings.TrimPrefix(line, "$ "))
			cur.outs = append(cur.outs, nil)
		case in && cur != nil:
			cur.outs[len(cur.outs)-1] = append(cur.outs[len(cur.outs)-1], line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

// machineDependent are the parts of an output that change from run to
// run or machine to machine: durations, rates, worker counts, the kernel
// set, the points the projection timed and the peak memory it projects
// (the collector's state). Both sides are rewritten before they are compared.
var machineDependent = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9.]+ ?(ms|µs|s)\b`), "<time>"},
	{regexp.MustCompile(`([0-9]+h)?([0-9]+m)?[0-9.]+s\b`), "<time>"},
	{regexp.MustCompile(`[0-9]+ points/s`), "<rate> points/s"},
	{regexp.MustCompile(`[0-9]+ workers?`), "<n> workers"},
	{regexp.MustCompile(`\b(avx2|avx512|scalar|portable) kernels`), "<set> kernels"},
	{regexp.MustCompile(`timed on [0-9]+`), "timed on <n>"}, // as many as 3 s time
	{regexp.MustCompile(`[0-9.]+ [kMG]?B of memory at the peak`), "<bytes> of memory at the peak"},
}

func normalise(s string) string {
	for _, m := range machineDependent {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return strings.TrimRight(s, " ")
}

// matchOutput reports whether got (lines) is the documented output want,
// where a documented line "..." or "  ..." stands for any lines.
func matchOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchOutput(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && normalise(want[0]) == normalise(got[0]) && matchOutput(want[1:], got[1:])
}

// TestReadmeOutputs runs the README's sessions (sh blocks of "$ "
// commands) in order, in a folder standing for the repository's root, and
// compares each command's output with the one the README shows, durations,
// rates, worker counts and kernel sets aside; then it checks the Go
// snippets' printed values (README and docs/query.md) on the store the
// session baked. -short skips it (a 1,024-sector bake).
func TestReadmeOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes the README's demo store (make check)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir, env := sandbox(t, root)
	sessions := transcripts(t, filepath.Join(root, "README.md"))
	if len(sessions) < 2 {
		t.Fatalf("%d sessions in README.md", len(sessions))
	}
	for _, s := range sessions {
		for i, c := range s.cmds {
			cmd := shell(t, c)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("$ %s: %v\n%s", c, err, out)
			}
			got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
			if !matchOutput(s.outs[i], got) {
				t.Errorf("$ %s\nprints:\n%s\nthe README shows:\n%s", c, strings.Join(got, "\n"), strings.Join(s.outs[i], "\n"))
			}
		}
	}
	st, err := frontiersets.Open(filepath.Join(dir, "demo.pvs"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := st.Frontier([2]int{40, 128}, [2]int{215, 128}, grow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("fmt.Println(res.MutuallyVisible, res.A.Points, res.B.Points) // %v %d %d", res.MutuallyVisible, res.A.Points, res.B.Points)
	for _, doc := range []string{"README.md", "docs/query.md"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s's Go snippet should end %q: what it prints on the README's demo.pvs", doc, want)
		}
	}
}

// sandbox builds pvsbake and frontierq from this checkout and returns a
// folder standing for the repository's root (its entries linked in) and
// an environment with the commands first on the PATH.
func sandbox(t *testing.T, root string) (dir string, env []string) {
	t.Helper()
	dir, bin := t.TempDir(), t.TempDir()
	build := exec.Command("go", "build", "-o", bin, "./cmd/pvsbake", "./cmd/frontierq")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	// The Go recipe's new module takes the project's dependencies from the
	// module cache or proxy; the checksum database may be out of reach.
	// /usr/bin before the rest: the Python recipe wants the system's
	// python3, whose numpy (Debian's python3-numpy) a venv can share.
	env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+os.Getenv("PATH"), "GOWORK=off", "GOSUMDB=off", "GOFLAGS=-mod=mod")
	return dir, env
}
