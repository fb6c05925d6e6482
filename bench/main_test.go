package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/internal/cli"
)

// TestCombineParts runs the benchmark on small real windows once whole and
// once in two parts (simple/lossless continued with --first-pair), combines
// the parts, and checks that the combined report holds the same queries.
func TestCombineParts(t *testing.T) {
	for _, p := range []string{"../../shared/data/N44W072.hgt", "../../shared/data/annarbor-dsm-2ft.tif"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("real DEM %s absent: %v", p, err)
		}
	}
	tmp := t.TempDir()
	stores := filepath.Join(tmp, "stores")
	common := []string{"--open", "../../shared/data/N44W072.hgt", "--urban", "../../shared/data/annarbor-dsm-2ft.tif",
		"--open-window", "700,700,24,20", "--urban-window", "143,184,20,24", "--limits", "0.0005",
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
	} {
		var stderr strings.Builder
		err := run(append(args, "--out", t.TempDir()), io.Discard, &stderr)
		var ue *cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
