package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// buildPvsbake builds this command into dir and returns the binary's path.
func buildPvsbake(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "pvsbake")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestShardsAsProcesses bakes a real window as four shards, each its own
// process (as an Indexed Job's pods or a Slurm array's tasks run them),
// joins them in another, and checks that the joined stores are byte for
// byte those of a single bake; a join missing a shard fails with exit 1
// and one line naming it.
func TestShardsAsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes shards as processes (make check)")
	}
	dem, win := testdem.Path(t, "N44W072.hgt", heightmap.Window{Col: 600, Row: 700, Width: 50, Height: 41})
	dir := t.TempDir()
	bin := buildPvsbake(t, dir)
	flags := []string{"--window", win.String(), "--sectors", "128", "--budget", "200kB,2MB", "--quiet"}
	run := func(args ...string) (string, string, error) {
		var o, e bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}
	if _, e, err := run(append([]string{"bake", dem, "-o", filepath.Join(dir, "whole")}, flags...)...); err != nil {
		t.Fatalf("bake: %v: %s", err, e)
	}
	var parts []string
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("part-%d", i))
		o, e, err := run(append([]string{"bake", dem, "-o", p, "--shard", fmt.Sprintf("%d/4", i)}, flags...)...)
		if err != nil || !strings.Contains(o, fmt.Sprintf("shard %d/4", i)) {
			t.Fatalf("shard %d: %v: %s%s", i, err, o, e)
		}
		parts = append(parts, p)
	}
	o, e, err := run(append([]string{"join", "-o", filepath.Join(dir, "joined")}, parts...)...)
	if err != nil || !strings.Contains(o, "joined 4 shards") {
		t.Fatalf("join: %v: %s%s", err, o, e)
	}
	for _, b := range []string{"200kB", "2MB"} {
		want, _ := os.ReadFile(filepath.Join(dir, "whole-"+b+".pvs"))
		got, err := os.ReadFile(filepath.Join(dir, "joined-"+b+".pvs"))
		if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: joined store differs from the single bake's (%d vs %d bytes, %v)", b, len(got), len(want), err)
		}
	}
	_, e, err = run("join", "-o", filepath.Join(dir, "short"), parts[0], parts[1], parts[3])
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || strings.Count(e, "\n") != 1 || !strings.Contains(e, "shard 2 of 4") {
		t.Errorf("join without shard 2: %v: %q", err, e)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*short*")); len(left) > 0 {
		t.Errorf("a failed join left %v", left)
	}
	_, e, err = run(append([]string{"bake", dem, "-o", filepath.Join(dir, "p"), "--shard", "4/4"}, flags...)...)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(e, "--shard") {
		t.Errorf("--shard 4/4: %v: %q", err, e)
	}
}
