package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/testdem"
)

// TestCombineParts runs the benchmark on small real windows once whole and
// once in two parts (simple/lossless continued with --first-pair), combines
// the parts, and checks that the combined report holds the same queries.
func TestCombineParts(t *testing.T) {
	open, urban := realDEMs(t)
	tmp := t.TempDir()
	stores := filepath.Join(tmp, "stores")
	common := []string{"--open", open, "--urban", urban,
		"--open-window", "600,600,24,20", "--urban-window", "43,84,20,24", "--limits", "0.0005",
		"--stores", stores, "--reuse", "--audit", "2", "--warmup", "1"}
	var log strings.Builder
	runBench := func(out string, extra ...string) string {
		t.Helper()
		log.Reset()
		if err := run(append(append([]string{}, common...), append([]string{"--out", out}, extra...)...), &log, io.Discard); err != nil {
			t.Fatal(err)
		}
		dirs, _ := filepath.Glob(filepath.Join(out, "*"))
		if len(dirs) != 1 {
			t.Fatalf("%s holds %v", out, dirs)
		}
		return dirs[0]
	}
	whole := runBench(filepath.Join(tmp, "whole"), "--pairs", "6")
	part1 := runBench(filepath.Join(tmp, "part1"), "--pairs", "6", "--slow-pairs", "2")
	part2 := runBench(filepath.Join(tmp, "part2"), "--cases", "simple/lossless", "--first-pair", "2", "--pairs", "4", "--progress", "1ns")
	// With a progress line after every query but the last: 3 per case.
	if n := strings.Count(log.String(), " of 4 pairs, about "); n != 3*2*2 {
		t.Errorf("%d progress lines, want 3 per case and store:\n%s", n, log.String())
	}
	if md, err := os.ReadFile(filepath.Join(part2, "README.md")); err != nil || !strings.Contains(string(md), "**Part of a run**: pairs 2–5") {
		t.Errorf("part README without its pair range (%v):\n%.600s", err, md)
	}
	if err := run([]string{"--combine", part1 + "," + part2, "--out", filepath.Join(tmp, "combined")}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "combined", "*"))
	if len(dirs) != 1 {
		t.Fatalf("combined: %v", dirs)
	}
	var w, c report
	if err := w.readRuns(filepath.Join(whole, "runs.csv.zst")); err != nil {
		t.Fatal(err)
	}
	if err := c.readRuns(filepath.Join(dirs[0], "runs.csv.zst")); err != nil {
		t.Fatal(err)
	}
	// Same queries (pairs and frontier sizes), whatever their order and times.
	type q struct {
		k      caseKey
		pair   int
		a, b   [2]int
		points int
	}
	set := func(r *report) map[q]bool {
		m := map[q]bool{}
		for _, x := range r.runs {
			m[q{x.caseKey, x.Pair, x.A, x.B, x.Points}] = true
		}
		return m
	}
	ws, cs := set(&w), set(&c)
	if len(ws) != 2*2*4*6 || len(cs) != len(ws) {
		t.Fatalf("%d queries whole, %d combined", len(ws), len(cs))
	}
	for k := range ws {
		if !cs[k] {
			t.Fatalf("query %+v missing from the combined report", k)
		}
	}
	// Combining a part twice is refused.
	if err := run([]string{"--combine", part2 + "," + part2, "--out", filepath.Join(tmp, "twice")}, io.Discard, io.Discard); err == nil {
		t.Error("combining a part with itself succeeded")
	}
}

// TestBenchUsage: bad accountings and bounds are usage errors, before any
// work.
func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--accountings", "ours,bogus"},
		{"--accountings", "ours,ours"},
		{"--max-steps", "-1"},
		{"raw", "--size", "10"},
		{"raw", "--pairs", "0"},
		{"raw", "--los", "exact"},
	} {
		var stderr strings.Builder
		err := run(append(args, "--out", t.TempDir()), io.Discard, &stderr)
		var ue *cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestGlobalAccounting: the global accountings bake at the ceiling,
// allocate to the limit, and the report sets them beside the min-loss ones
// with at least as many hidden cells kept at the same limit.
func TestGlobalAccounting(t *testing.T) {
	open, urban := realDEMs(t)
	tmp := t.TempDir()
	var log strings.Builder
	args := []string{"--open", open, "--urban", urban,
		"--open-window", "600,600,40,36", "--urban-window", "43,84,36,40", "--limits", "0.0001",
		"--stores", filepath.Join(tmp, "stores"), "--audit", "2", "--warmup", "1", "--pairs", "4",
		"--cases", "hierarchical/lossy", "--accountings", "ours-minloss,ours-global,thesis-minloss,thesis-global", "--out", filepath.Join(tmp, "out")}
	if err := run(args, &log, io.Discard); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "allocated "); n != 4 {
		t.Errorf("%d allocations logged, want two per terrain:\n%s", n, log.String())
	}
	var r report
	dirs, _ := filepath.Glob(filepath.Join(tmp, "out", "*"))
	if len(dirs) != 1 {
		t.Fatalf("out holds %v", dirs)
	}
	if err := r.readStores(filepath.Join(dirs[0], "stores.csv")); err != nil {
		t.Fatal(err)
	}
	kept := map[string]float64{}
	lim := 0.0001
	for _, s := range r.stores {
		kept[s.Terrain+" "+s.Accounting] = s.HiddenKept
		// Memory in the store's accounting: the loaded size, or 3 bytes per
		// node (a uniform node cap bounds that only per tree).
		mem := s.MemoryBytes
		if s.Accounting == "thesis-global" {
			mem = 3 * s.NodesTotal
		}
		if limit := int64(lim * (1 << 30)); s.Accounting != "thesis-minloss" && mem > limit {
			t.Errorf("%s %s: %d bytes, over the limit %d", s.Terrain, s.Accounting, mem, limit)
		}
	}
	for _, terr := range []string{"open", "urban"} {
		for _, acc := range []string{"ours", "thesis"} {
			g, m := kept[terr+" "+acc+"-global"], kept[terr+" "+acc+"-minloss"]
			t.Logf("%s, %s: hidden kept %.4f global, %.4f min-loss", terr, acc, g, m)
			if g == 0 || g < m {
				t.Errorf("%s, %s: hidden kept %.4f global, %.4f min-loss", terr, acc, g, m)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(dirs[0], "README.md"))
	if err != nil || !strings.Contains(string(md), "| urban | 0.0001 GiB | ours-global |") || !strings.Contains(string(md), "**ours-global**") {
		t.Errorf("README without the global rows (%v):\n%.2000s", err, md)
	}
}

// realDEMs returns the committed crops of the two real DEMs
// (internal/testdem): the NASADEM tile's columns and rows 100–1023 and the
// town DSM's 100–483, so that the harness's tests run in a fresh clone; a
// window of a full file at (c, r) is the crop's at (c−100, r−100).
func realDEMs(t *testing.T) (open, urban string) {
	t.Helper()
	open, _ = testdem.Path(t, "N44W072.hgt", heightmap.Window{Col: 100, Row: 100, Width: 924, Height: 924})
	urban, _ = testdem.Path(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 100, Row: 100, Width: 384, Height: 384})
	return open, urban
}
