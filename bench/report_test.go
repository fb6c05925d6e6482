package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestStatistics(t *testing.T) {
	m, ci := meanCI([]float64{1, 2, 3, 4, 5})
	// sd = √2.5, se = sd/√5, ci = 1.96·se
	if m != 3 || math.Abs(ci-1.96*math.Sqrt(2.5/5)) > 1e-12 {
		t.Errorf("mean %v ± %v", m, ci)
	}
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if quantile(sorted, 0.5) != 5 || quantile(sorted, 0.99) != 10 || quantile(sorted, 0) != 1 {
		t.Error("quantiles")
	}
	r := report{audits: map[caseKey][2]int{}}
	r.terrains = []terrain{{Name: "open"}}
	r.limitsGiB = []float64{0.1}
	r.pairs = 2
	k := caseKey{"open", 0.1, "thesis", "hierarchical", "lossy"}
	r.runs = []runRow{{caseKey: k, Points: 10, MS: 1}, {caseKey: k, Points: 30, MS: 3}}
	r.audits[k] = [2]int{0, 16}
	sums := r.summaries()
	if len(sums) != 1 || sums[0].meanPoints != 20 || sums[0].maxMS != 3 || sums[0].auditPoints != 16 {
		t.Fatalf("summaries %+v", sums)
	}
	md := r.markdown(sums)
	if !strings.Contains(md, "2.000 ± 1.960 [3.00, 3.00]") || !strings.Contains(md, "20 ± 20") {
		t.Errorf("table cell missing:\n%s", md)
	}
	if !strings.Contains(md, "*3.4 ± 0.3*") || !strings.Contains(md, "Reduced run") {
		t.Errorf("thesis figures or reduced-run notice missing:\n%s", md)
	}
}

// TestRunsRoundTrip writes runs.csv.zst and reads it back for --replot.
func TestRunsRoundTrip(t *testing.T) {
	var w report
	w.runs = []runRow{
		{caseKey: caseKey{"open", 0.1, "ours", "simple", "lossless"}, Pair: 0, A: [2]int{1, 2}, B: [2]int{3, 4}, Points: 500, MS: 12.5},
		{caseKey: caseKey{"urban", 0.25, "thesis", "hierarchical", "lossy"}, Pair: 7, A: [2]int{10, 20}, B: [2]int{30, 40}, Points: 9, MS: 0.0125},
	}
	path := filepath.Join(t.TempDir(), "runs.csv.zst")
	if err := w.writeRuns(path); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := r.readRuns(path); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.runs, w.runs) {
		t.Errorf("read %+v, wrote %+v", r.runs, w.runs)
	}
	if len(r.terrains) != 2 || r.terrains[1].Name != "urban" || !reflect.DeepEqual(r.limitsGiB, []float64{0.1, 0.25}) {
		t.Errorf("terrains %+v, limits %v", r.terrains, r.limitsGiB)
	}
	if err := r.readRuns(filepath.Join(t.TempDir(), "absent.csv.zst")); err == nil {
		t.Error("reading an absent file succeeded")
	}
}

// TestReplotTrendsFromSummary: summary.csv reads back to what was written
// (written again, the same bytes), and --replot of a folder without runs.csv.zst draws
// the trend plots from it and stores.csv: one time and one size plot per
// terrain and accounting, and no distributions.
func TestReplotTrendsFromSummary(t *testing.T) {
	var w report
	w.audits = map[caseKey][2]int{}
	for i, acc := range []string{"ours", "thesis"} {
		for _, lim := range []float64{0.1, 0.25} {
			k := caseKey{"urban", lim, acc, "hierarchical", "lossless"}
			w.runs = append(w.runs, runRow{caseKey: k, Points: 100 + i, MS: 1.25 * lim}, runRow{caseKey: k, Points: 300, MS: 2})
			w.audits[k] = [2]int{0, 8}
			w.stores = append(w.stores, storeRow{Terrain: "urban", LimitGiB: lim, Accounting: acc})
		}
	}
	dir := t.TempDir()
	sums := w.summaries()
	if err := w.writeSummary(filepath.Join(dir, "summary.csv"), sums); err != nil {
		t.Fatal(err)
	}
	if err := w.writeStores(filepath.Join(dir, "stores.csv")); err != nil {
		t.Fatal(err)
	}
	var r report
	got, err := r.readSummaries(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "summary.csv")
	if err := r.writeSummary(again, got); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "summary.csv"))
	b, _ := os.ReadFile(again)
	if len(got) != len(sums) || string(a) != string(b) || len(r.terrains) != 1 || !reflect.DeepEqual(r.limitsGiB, []float64{0.1, 0.25}) {
		t.Fatalf("read %+v (terrains %+v, limits %v); written again:\n%s\nfirst:\n%s", got, r.terrains, r.limitsGiB, b, a)
	}
	var out strings.Builder
	if err := replotDir(dir, &out); err != nil {
		t.Fatal(err)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	var names []string
	for _, p := range pngs {
		names = append(names, filepath.Base(p))
	}
	want := []string{"trend-size-urban-ours.png", "trend-size-urban-thesis.png", "trend-time-urban-ours.png", "trend-time-urban-thesis.png"}
	if !reflect.DeepEqual(names, want) || !strings.Contains(out.String(), "from its summary.csv") {
		t.Errorf("drew %v (%q), want %v", names, out.String(), want)
	}
}

// TestCapPolicyTable: a run with a min-loss accounting gets the side-by-side
// table (hidden kept, sizes, times, queries stopped by --max-steps), its
// command line names the accountings and the bound, and the min-loss cap is
// the deepest-first one with MinLoss set.
func TestCapPolicyTable(t *testing.T) {
	r := report{audits: map[caseKey][2]int{}, truncated: map[caseKey]int{}}
	r.terrains = []terrain{{Name: "urban"}}
	r.limitsGiB = []float64{0.1}
	r.pairs, r.slowPairs = 10500, 10500
	r.accountings = []string{"ours", "ours-minloss"}
	r.maxSteps = 125
	for i, acc := range r.accountings {
		k := caseKey{"urban", 0.1, acc, "hierarchical", "lossless"}
		r.runs = append(r.runs, runRow{caseKey: k, Points: 100 + 20*i, MS: 2}, runRow{caseKey: k, Points: 100 + 20*i, MS: 4})
		r.stores = append(r.stores, storeRow{Terrain: "urban", LimitGiB: 0.1, Accounting: acc, HiddenKept: 0.928 + 0.005*float64(i), Quads: 1})
	}
	r.truncated[caseKey{"urban", 0.1, "ours-minloss", "hierarchical", "lossless"}] = 3
	md := r.markdown(r.summaries())
	for _, want := range []string{
		"## Cap policies side by side",
		"| urban | 0.1 GiB | ours | 92.8% | 100 | 3.000 / 4.00 / 4.00 | — | — |",
		"| urban | 0.1 GiB | ours-minloss | 93.3% | 120 | 3.000 / 4.00 / 4.00 [3] | — | — |",
		"--accountings ours,ours-minloss --max-steps 125 --terrains urban --limits 0.1",
		"**ours-minloss**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	if got := r.accountingsUsed(); !reflect.DeepEqual(got, []string{"ours", "ours-minloss"}) {
		t.Errorf("accountings %v", got)
	}
	deep, err1 := accountingCap("thesis", 1<<30, 1000)
	ml, err2 := accountingCap("thesis-minloss", 1<<30, 1000)
	if err1 != nil || err2 != nil || !ml.MinLoss || deep.MinLoss || ml.Nodes != deep.Nodes || ml.Codes != deep.Codes {
		t.Errorf("caps %+v %+v (%v, %v)", deep, ml, err1, err2)
	}
}
