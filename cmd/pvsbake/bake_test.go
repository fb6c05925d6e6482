package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
)

func TestBakeAndStat(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "demo")
	stdout, errOut, code := runCmd("bake", "../../data/demo-hills.tif", "--window", "100,100,32,24", "--sectors", "256",
		"-o", prefix, "--budget", "100kB,1MB", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "demo-100kB.pvs") || !strings.Contains(stdout, "baked 768 points") {
		t.Errorf("stdout: %s", stdout)
	}
	var small, large storeStat
	for _, c := range []struct {
		name string
		dst  *storeStat
	}{{"demo-100kB.pvs", &small}, {"demo-1MB.pvs", &large}} {
		out, errOut, code := runCmd("stat", filepath.Join(dir, c.name))
		if code != 0 {
			t.Fatalf("stat %s: exit %d: %s", c.name, code, errOut)
		}
		if err := json.Unmarshal([]byte(out), c.dst); err != nil {
			t.Fatal(err)
		}
	}
	if small.Points != 768 || small.Quads != 768+192+48+12+4+1 || small.BudgetBytes != 100000 || small.Bytes > 100000 || small.Params.Sectors != 256 {
		t.Errorf("small store: %+v", small)
	}
	if large.HiddenKept != 1 || small.HiddenKept > large.HiddenKept || small.NodesTotal >= large.NodesTotal {
		t.Errorf("hidden kept %v / %v, nodes %d / %d", small.HiddenKept, large.HiddenKept, small.NodesTotal, large.NodesTotal)
	}
}

func TestBakeErrors(t *testing.T) {
	dir := t.TempDir()
	dem := "../../data/demo-hills.tif"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no budget", []string{"bake", dem, "-o", filepath.Join(dir, "x.pvs")}, 2, "either --budget or --nodes"},
		{"both", []string{"bake", dem, "-o", filepath.Join(dir, "x.pvs"), "--budget", "1MB", "--nodes", "5"}, 2, "either --budget or --nodes"},
		{"bad budget", []string{"bake", dem, "-o", filepath.Join(dir, "x.pvs"), "--budget", "lots"}, 2, "lots"},
		{"budget too small", []string{"bake", dem, "--window", "0,0,16,16", "-o", filepath.Join(dir, "x.pvs"), "--budget", "1kB"}, 1, "the minimum is"},
		{"unwritable", []string{"bake", dem, "--window", "0,0,8,8", "-o", filepath.Join(dir, "no", "x.pvs"), "--nodes", "5"}, 1, "x.pvs"},
		{"stat of a DEM", []string{"stat", dem}, 1, "not a PVS store"},
		{"stat missing", []string{"stat", filepath.Join(dir, "none.pvs")}, 1, "none.pvs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d (want %d), stderr:\n%s", code, tc.code, errOut)
			}
		})
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("failed bakes left %v", left)
	}
}

// TestCheckDisk: a bake whose stores, partial or checkpoint folder would
// not fit the free space of their file system is refused, naming the
// folders and both sizes; folders on one file system count together.
func TestCheckDisk(t *testing.T) {
	const cells, quads = 1000 * 1000, 1_398_101
	outs := []bake.Output{{Path: "/a/s-1GB.pvs", Budget: 1e9}, {Path: "/a/s-2GB.pvs", Budget: 2e9}}
	stores := storeFileBytes(outs[0], cells, quads) + storeFileBytes(outs[1], cells, quads)
	need := stores + 2*16*quads // and each store's index spill until the commit
	disks := func(free map[string]int64, dev map[string]uint64) func(string) (int64, uint64, error) {
		return func(p string) (int64, uint64, error) { return free[p], dev[p], nil }
	}
	for _, c := range []struct {
		name   string
		resume string
		shard  bool
		free   map[string]int64
		dev    map[string]uint64
		want   string // "" when it fits
	}{
		{"fits", "", false, map[string]int64{"/a": need + 1}, map[string]uint64{"/a": 1}, ""},
		{"full", "", false, map[string]int64{"/a": need - 1}, map[string]uint64{"/a": 1}, "need about 3.05 GB of disk in /a and 3.05 GB is free"},
		// The stores fit, their index spills do not (a bake on a 5.2 MB
		// tmpfs failed at 82% with "no space left on device").
		{"room for the stores, not their index spills", "", false, map[string]int64{"/a": stores + 1}, map[string]uint64{"/a": 1}, "need about 3.05 GB of disk in /a and 3.01 GB is free"},
		{"resume on the same disk", "/a/ck", false, map[string]int64{"/a": need + 1}, map[string]uint64{"/a": 1}, "in /a and 3.05 GB is free"},
		{"resume elsewhere", "/b/ck", false, map[string]int64{"/a": need + 1, "/b": stores + 1}, map[string]uint64{"/a": 1, "/b": 2}, ""},
		{"resume elsewhere, full", "/b/ck", false, map[string]int64{"/a": need + 1, "/b": stores / 2}, map[string]uint64{"/a": 1, "/b": 2}, "in /b and 1.50 GB is free"},
		{"a shard's share", "", true, map[string]int64{"/a": need / 3}, map[string]uint64{"/a": 1}, ""},
	} {
		err := checkDisk(outs, "/a/part", c.resume, 0.25, cells, quads, c.shard, disks(c.free, c.dev))
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if n := storeFileBytes(bake.Output{Cap: compress.Cap{Nodes: 100}}, cells, quads); n < int64(quads)*(compress.QuadOverhead+28) {
		t.Errorf("a 100-node cap's store estimated at %d bytes", n)
	}
}

// corruptIndex sets the first entry of a flat store's tree index (TIDX:
// the start of quad 0's record, the cell (0,0)) to 2^63, as a hostile
// input audit did.
func corruptIndex(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "TIDX")
	if i < 0 {
		t.Fatalf("%s has no TIDX section", path)
	}
	copy(b[i+32:], []byte{0, 0, 0, 0, 0, 0, 0, 0x80})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStatCodesReportsCorruptTrees: stat --codes reads every tree, so a
// tree whose index entry is corrupt is an error naming the quad, not a
// measurement of the one Visible node it reads as (exit 0 before).
func TestStatCodesReportsCorruptTrees(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.pvs")
	if _, errOut, code := runCmd("bake", "../../data/demo-hills.tif", "--window", "100,100,32,24", "--sectors", "256", "-o", store, "--budget", "100kB", "--quiet"); code != 0 {
		t.Fatalf("bake: exit %d: %s", code, errOut)
	}
	corruptIndex(t, store)
	if _, errOut, code := runCmd("stat", store, "--codes"); code != 1 || !strings.Contains(errOut, "quad 0") {
		t.Errorf("stat --codes on a corrupt index entry: exit %d: %s", code, errOut)
	}
}
