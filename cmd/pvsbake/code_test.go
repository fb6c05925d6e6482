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

// TestCode: allocate --coded writes a coded store that fills the budget
// (within 5%) and keeps fewer hidden cells than its input (the trials
// searched below it; on this 64² terrain the coder's 1.3 MB of tables
// leave it fewer than a flat bake at the budget keeps: the urban
// benchmark's are in docs/bake.md); stat reports
// its encoding and bits per code; code writes the same trees as its input;
// coded or over-budget inputs and bad flags are refused.
func TestCode(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "demo")
	bakeDemo(t, prefix, "--budget", "1900kB,10MB", "--cap-policy", "min-loss")
	out := filepath.Join(dir, "coded.pvs")
	stdout, errOut, code := runCmd("allocate", prefix+"-10MB.pvs", "-o", out, "--budget", "1900kB", "--coded", "--json")
	if code != 0 {
		t.Fatalf("allocate --coded: exit %d: %s%s", code, stdout, errOut)
	}
	t.Log(strings.TrimSpace(errOut))
	var rep allocateCodedJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	s, err := bake.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := bake.OpenStore(prefix + "-1900kB.pvs")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("coded: %+v; flat at 1900 kB: hidden kept %.4f", rep, flat.HiddenKept)
	if s.Encoding != compress.EncodingCoded || s.Hierarchy.Bytes() > 1900000 || int64(s.Hierarchy.Bytes()) != rep.MemoryBytes ||
		s.Allocation == nil || s.BudgetBytes != 1900000 || s.Hierarchy.Bytes() < 1900000*95/100 || !(s.HiddenKept < rep.InputHiddenKept) || rep.FlatBudget >= 1900000 {
		t.Fatalf("coded store: encoding %q, %d bytes, allocation %v, budget %d, hidden kept %.4f (flat %.4f)",
			s.Encoding, s.Hierarchy.Bytes(), s.Allocation, s.BudgetBytes, s.HiddenKept, flat.HiddenKept)
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
		{[]string{"allocate", out2, "-o", filepath.Join(dir, "x.pvs"), "--budget", "1MB", "--coded"}, 1, "straight from a bake"},
		{[]string{"allocate", prefix + "-10MB.pvs", "-o", filepath.Join(dir, "x.pvs"), "--budget", "100kB", "--coded", "-q"}, 1, "budget"},
	} {
		_, errOut, code := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit %d naming %q in one line", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
