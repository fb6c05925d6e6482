package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/quadtree"
)

// TestAllocate re-caps a min-loss store baked at 2 MB to 300 kB by global
// allocation: the store written fits the budget, records its allocation
// (stat shows it; stat --codes measures its codes), keeps every tree
// within the ceiling and keeps more hidden cells than the uniform min-loss
// cap of a bake at 300 kB. A store already allocated is refused; bad
// arguments are usage errors.
func TestAllocate(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "demo")
	bakeDemo(t, prefix, "--budget", "300kB,2MB", "--cap-policy", "min-loss")
	out := filepath.Join(dir, "global.pvs")
	stdout, errOut, code := runCmd("allocate", prefix+"-2MB.pvs", "-o", out, "--budget", "300kB")
	if code != 0 || !strings.Contains(stdout, "hidden cells per byte") {
		t.Fatalf("allocate: exit %d: %s%s", code, stdout, errOut)
	}
	s, err := bake.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := bake.OpenStore(prefix + "-300kB.pvs")
	if err != nil {
		t.Fatal(err)
	}
	a := s.Allocation
	t.Logf("%s; uniform: cap %d codes, %d bytes, hidden kept %.4f", strings.TrimSpace(stdout), plain.Cap.Codes, plain.Hierarchy.Bytes(), plain.HiddenKept)
	if a == nil || a.Policy != "global" || s.Cap.Codes != a.CeilingCodes || !s.Cap.MinLoss || s.BudgetBytes != 300000 {
		t.Fatalf("header cap %+v, allocation %+v", s.Cap, a)
	}
	if s.Hierarchy.Bytes() > 300000 || s.HiddenKept <= plain.HiddenKept {
		t.Errorf("allocated: %d bytes, hidden kept %.4f; uniform %.4f", s.Hierarchy.Bytes(), s.HiddenKept, plain.HiddenKept)
	}
	for q := range s.Hierarchy.Quads() {
		if int(quadtree.FlatOf(s.Hierarchy).Len[q]) > a.CeilingCodes {
			t.Fatalf("quad %d: %d codes over the ceiling %d", q, quadtree.FlatOf(s.Hierarchy).Len[q], a.CeilingCodes)
		}
	}
	if st, _, code := runCmd("stat", out); code != 0 || !strings.Contains(st, `"policy": "global"`) {
		t.Errorf("stat: exit %d: %s", code, st)
	}
	// stat --codes: bits per code as stored, and less with context.
	st, _, code := runCmd("stat", out, "--codes")
	var cs struct{ Codes codeStat }
	if err := json.Unmarshal([]byte(st), &cs); code != 0 || err != nil {
		t.Fatalf("stat --codes: exit %d, %v: %s", code, err, st)
	}
	c := cs.Codes
	t.Logf("codes: %+v", c)
	if !(c.BitsMemory >= 2.5 && c.BitsFile >= 2 && c.Entropy <= 2 && c.EntropySibling <= c.EntropyDepth && c.EntropyDepth <= c.Entropy &&
		c.EntropyGivenParent > 0 && c.EntropyGivenParent < c.EntropySibling && c.RedundantFraction > 0 && c.RedundantFraction < 1 &&
		c.BitsConditional > 0 && c.BitsConditional < c.EntropySibling) {
		// (the coder given the parent quad's tree: below the entropy given
		// the siblings, which no coder of a tree alone goes under)
		t.Errorf("stat --codes: %+v", c)
	}
	if _, errOut, code := runCmd("allocate", out, "-o", filepath.Join(dir, "again.pvs"), "--budget", "200kB"); code != 1 || !strings.Contains(errOut, "an allocation") {
		t.Errorf("allocating twice: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCmd("allocate", prefix+"-2MB.pvs", "-o", filepath.Join(dir, "tiny.pvs"), "--budget", "1kB"); code != 1 || !strings.Contains(errOut, "minimum") {
		t.Errorf("tiny budget: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{
		{"allocate", out, "--budget", "50kB"},
		{"allocate", out, "-o", "x.pvs"},
		{"allocate", out, "-o", "x.pvs", "--budget", "lots"},
		{"allocate", out, "-o", "x.pvs", "--budget", "50kB", "--ceiling", "-1"},
		{"allocate", out, "-o", "x.pvs", "--budget", "50kB", "--level-weight", "0"},
	} {
		if _, errOut, code := runCmd(args...); code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestAllocateThesis: a store baked with --nodes is allocated in the
// thesis's accounting (3 bytes per node): the ceiling is in nodes, the
// store fits the budget at 3 bytes per node and keeps more hidden cells
// than the uniform node cap of the same budget.
func TestAllocateThesis(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "demo")
	bakeDemo(t, prefix, "--nodes", "100,400", "--cap-policy", "min-loss")
	plain, err := bake.OpenStore(prefix + "-n100.pvs")
	if err != nil {
		t.Fatal(err)
	}
	budget := 3 * 100 * plain.Hierarchy.Quads()
	out := filepath.Join(dir, "global.pvs")
	stdout, errOut, code := runCmd("allocate", prefix+"-n400.pvs", "-o", out, "--budget", strconv.Itoa(budget)+"B")
	if code != 0 || !strings.Contains(stdout, "hidden cells per node") {
		t.Fatalf("allocate: exit %d: %s%s", code, stdout, errOut)
	}
	s, err := bake.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Allocation
	t.Logf("%s; uniform: %d nodes per PVS, hidden kept %.4f", strings.TrimSpace(stdout), plain.Cap.Nodes, plain.HiddenKept)
	if a == nil || a.Accounting != "thesis" || a.CeilingNodes != s.Cap.Nodes || s.Cap.Codes != 0 || a.CeilingNodes != 400 {
		t.Fatalf("header cap %+v, allocation %+v", s.Cap, a)
	}
	if n := 3 * s.Hierarchy.StoredNodes(); n > int64(budget) || s.HiddenKept <= plain.HiddenKept {
		t.Errorf("allocated: %d bytes at 3 per node (budget %d), hidden kept %.4f; uniform %.4f", n, budget, s.HiddenKept, plain.HiddenKept)
	}
}
