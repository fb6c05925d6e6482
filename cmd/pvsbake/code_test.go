package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
)

// TestCode: bake --encoding coded writes a coded store that fills its
// budget (at most it, and most of it; on this 64² terrain the coder's
// 1.3 MB of tables take most of 1.6 MB, so it keeps fewer hidden cells
// than a flat store would: internal/bake's TestCodedBake compares them on
// a real window); stat reports its encoding and bits per code; code writes
// the same trees as its input; coded or over-budget inputs and bad flags
// are refused.
func TestCode(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "demo")
	bakeDemo(t, prefix, "--budget", "1900kB,10MB", "--cap-policy", "min-loss")
	out := filepath.Join(dir, "coded.pvs")
	bakeDemo(t, out, "--budget", "1600kB", "--encoding", "coded")
	s, err := bake.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := bake.OpenStore(prefix + "-1900kB.pvs")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 1_600_000
	t.Logf("coded: %d bytes, hidden kept %.4f; flat at 1900 kB: hidden kept %.4f", s.Hierarchy.Bytes(), s.HiddenKept, flat.HiddenKept)
	if s.Encoding != compress.EncodingCoded || s.Hierarchy.Bytes() > budget || int64(s.Hierarchy.Bytes()) != s.MemoryBytes ||
		s.Allocation == nil || s.BudgetBytes != budget || s.Hierarchy.Bytes() < budget*90/100 || !(s.HiddenKept > 0.5 && s.HiddenKept < 1) {
		t.Fatalf("coded store: encoding %q, %d bytes (stats %d), allocation %v, budget %d, hidden kept %.4f (flat %.4f)",
			s.Encoding, s.Hierarchy.Bytes(), s.MemoryBytes, s.Allocation, s.BudgetBytes, s.HiddenKept, flat.HiddenKept)
	}
	st, _, code := runCmd("stat", out)
	var ss storeStat
	if err := json.Unmarshal([]byte(st), &ss); code != 0 || err != nil || ss.Encoding != compress.EncodingCoded || !(ss.BitsPerCode > 0 && ss.BitsPerCode < 1) || ss.CacheBytes <= 0 {
		t.Errorf("stat: exit %d, %v: %s", code, err, st)
	}
	// code: the same trees as the input.
	out2 := filepath.Join(dir, "coded2.pvs")
	if stdout, errOut, code := runCmd("code", prefix+"-1900kB.pvs", "-o", out2, "--cache", "64KiB"); code != 0 || !strings.Contains(stdout, "bits per code") {
		t.Fatalf("code: exit %d: %s%s", code, stdout, errOut)
	}
	c2, err := bake.OpenStore(out2)
	if err != nil {
		t.Fatal(err)
	}
	for q := range flat.Hierarchy.Quads() {
		a, b := flat.Hierarchy.PVS(q), c2.Hierarchy.PVS(q)
		if !slices.Equal(a.Codes(), b.Codes()) {
			t.Fatalf("quad %d: the coded store's tree differs from its input's", q)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"code", out2, "-o", filepath.Join(dir, "x.pvs")}, 1, "coded already"},
		{[]string{"code", prefix + "-10MB.pvs", "-o", filepath.Join(dir, "x.pvs"), "--budget", "1MB"}, 1, "over the budget"},
		{[]string{"code", out2, "-o", filepath.Join(dir, "x.pvs"), "--cache", "3kB"}, 2, "--cache 3kB: want"},
		{[]string{"bake", "../../data/demo-hills.tif", "-o", filepath.Join(dir, "x.pvs"), "--nodes", "40", "--encoding", "coded"}, 2, "--encoding coded needs --budget"},
		{[]string{"bake", "../../data/demo-hills.tif", "-o", filepath.Join(dir, "x.pvs"), "--budget", "1MB", "--encoding", "zip"}, 2, "--encoding \"zip\""},
		{[]string{"bake", "../../data/demo-hills.tif", "-o", filepath.Join(dir, "x.pvs"), "--budget", "100kB", "--encoding", "coded"}, 1, "budget"},
	} {
		_, errOut, code := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit %d naming %q in one line", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
