package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestShare re-caps a store baked at 2 MB to 300 kB with sharing. On so
// small a terrain (5,461 quads of at most 64 codes at 300 kB) the
// reference index costs more than sharing saves, so the store is written
// unshared at the cap of a bake at 300 kB, and says so; it fits, keeps the
// same hidden cells, and a store already shared is refused. Bad arguments
// are usage errors. (compress.TestFitShared and the benchmark's stores
// cover the case where sharing pays.)
func TestShare(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "demo")
	bakeDemo(t, prefix, "--budget", "300kB,2MB")
	shared := filepath.Join(dir, "shared.pvs")
	stdout, errOut, code := runCmd("share", prefix+"-2MB.pvs", "-o", shared, "--budget", "300kB")
	if code != 0 {
		t.Fatalf("share: exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "shared subtrees") || !strings.Contains(errOut, "over the budget") || !strings.Contains(errOut, "written unshared") {
		t.Errorf("stdout %q, stderr %q", stdout, errOut)
	}
	stat := func(p string) storeStat {
		out, errOut, code := runCmd("stat", p)
		if code != 0 {
			t.Fatalf("stat %s: exit %d: %s", p, code, errOut)
		}
		var s storeStat
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, plain := stat(shared), stat(prefix+"-300kB.pvs")
	t.Logf("shared: cap %+v, %d shared subtrees, %d bytes, hidden kept %.4f; plain: cap %+v, %d bytes, hidden kept %.4f",
		s.Cap, s.Shared, s.Bytes, s.HiddenKept, plain.Cap, plain.Bytes, plain.HiddenKept)
	if s.Shared != 0 || s.Bytes != plain.Bytes || s.Cap.Codes != plain.Cap.Codes || s.HiddenKept != plain.HiddenKept || s.BudgetBytes != 300000 {
		t.Errorf("shared store %+v against %+v", s, plain)
	}
	if _, errOut, code := runCmd("share", "../../compress/testdata/shared.pvs", "-o", filepath.Join(dir, "again.pvs"), "--budget", "50kB"); code != 1 || !strings.Contains(errOut, "already has shared subtrees") {
		t.Errorf("sharing twice: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{
		{"share", shared, "--budget", "50kB"},
		{"share", shared, "-o", "x.pvs"},
		{"share", shared, "-o", "x.pvs", "--budget", "lots"},
		{"share", shared, "-o", "x.pvs", "--budget", "50kB", "--min-codes", "4"},
	} {
		if _, errOut, code := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if _, errOut, code := runCmd("share", prefix+"-2MB.pvs", "-o", filepath.Join(dir, "tiny.pvs"), "--budget", "1kB"); code != 1 || !strings.Contains(errOut, "minimum") {
		t.Errorf("tiny budget: exit %d: %s", code, errOut)
	}
}

// bakeDemo bakes a 64² window of the demo DEM at 256 sectors into the
// stores of prefix, with the budget or node flags given.
func bakeDemo(t *testing.T, prefix string, flags ...string) {
	t.Helper()
	args := append([]string{"bake", "../../data/demo-hills.tif", "--window", "60,60,64,64", "--sectors", "256", "-o", prefix, "--quiet"}, flags...)
	if _, errOut, code := runCmd(args...); code != 0 {
		t.Fatalf("bake: exit %d: %s", code, errOut)
	}
}
