package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
)

// caseKey names one case of the experiment.
type caseKey struct {
	Terrain    string
	LimitGiB   float64
	Accounting string
	Method     string
	Merge      string
}

// runRow is one query.
type runRow struct {
	caseKey
	Pair   int
	A, B   [2]int
	Points int     // both frontiers together
	MS     float64 // running time, milliseconds
}

// storeRow describes one baked store.
type storeRow struct {
	Terrain     string
	LimitGiB    float64
	Accounting  string
	Points      int
	Quads       int
	CapCodes    int
	CapNodes    int
	NodesTotal  int64
	NodesMax    int
	MemoryBytes int64
	FileBytes   int64
	HiddenKept  float64
	BakeSeconds float64
	PeakRSS     int64
	LoadSeconds float64
}

type report struct {
	config
	started  time.Time
	elapsed  time.Duration
	combined []string // results folders this report combines (--combine)
	stores   []storeRow
	runs     []runRow
	audits   map[caseKey][2]int // violations, points checked
	// truncated counts the queries --max-steps stopped, per case (this
	// run's README only: runs.csv.zst does not keep it).
	truncated map[caseKey]int
}

// capPolicies returns, when the run has min-loss accountings, a table
// setting each next to its deepest-first counterpart at every limit: hidden
// cells kept and the hierarchical cases' frontier sizes and times.
func (r *report) capPolicies(find func(t string, lim float64, acc, method, merge string) *summary) string {
	used := r.accountingsUsed()
	if !slices.ContainsFunc(used, func(a string) bool { return strings.HasSuffix(a, "-minloss") || global(a) }) {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Cap policies side by side\n\nHidden cells kept by the cap; per hierarchical case the mean frontier set size (points, both frontiers) and the running time in ms as mean / p99 / max")
	if len(r.truncated) > 0 {
		b.WriteString(", with the queries `--max-steps` stopped in brackets")
	}
	b.WriteString(".\n\n| terrain | limit | accounting | hidden kept | hierarchical lossless: size | time | hierarchical lossy: size | time |\n|---|---|---|---|---|---|---|---|\n")
	for _, t := range r.terrains {
		for _, lim := range r.limitsGiB {
			for _, acc := range used {
				kept := "—"
				for _, st := range r.stores {
					if st.Terrain == t.Name && st.LimitGiB == lim && st.Accounting == acc {
						kept = fmt.Sprintf("%.1f%%", 100*st.HiddenKept)
					}
				}
				fmt.Fprintf(&b, "| %s | %g GiB | %s | %s |", t.Name, lim, acc, kept)
				for _, merge := range []string{"lossless", "lossy"} {
					s := find(t.Name, lim, acc, "hierarchical", merge)
					if s == nil {
						b.WriteString(" — | — |")
						continue
					}
					tr := ""
					if n := r.truncated[s.caseKey]; n > 0 {
						tr = fmt.Sprintf(" [%d]", n)
					}
					fmt.Fprintf(&b, " %.0f | %.3f / %.2f / %.2f%s |", s.meanPoints, s.meanMS, s.p99, s.maxMS, tr)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// accountingsUsed returns the accountings of r's stores and queries, in the
// order of knownAccountings.
func (r *report) accountingsUsed() []string {
	var out []string
	for _, a := range knownAccountings {
		if slices.ContainsFunc(r.stores, func(s storeRow) bool { return s.Accounting == a }) ||
			slices.ContainsFunc(r.runs, func(x runRow) bool { return x.Accounting == a }) {
			out = append(out, a)
		}
	}
	return out
}

// summary is one row of summary.csv.
type summary struct {
	caseKey
	pairs                         int
	meanMS, ciMS, p50, p99, maxMS float64
	meanPoints, ciPoints          float64
	violations, auditPoints       int
}

func (r *report) summaries() []summary {
	by := map[caseKey][]runRow{}
	var keys []caseKey
	for _, x := range r.runs {
		if _, ok := by[x.caseKey]; !ok {
			keys = append(keys, x.caseKey)
		}
		by[x.caseKey] = append(by[x.caseKey], x)
	}
	var out []summary
	for _, k := range keys {
		rows := by[k]
		ms := make([]float64, len(rows))
		pts := make([]float64, len(rows))
		for i, x := range rows {
			ms[i], pts[i] = x.MS, float64(x.Points)
		}
		s := summary{caseKey: k, pairs: len(rows)}
		s.meanMS, s.ciMS = meanCI(ms)
		s.meanPoints, s.ciPoints = meanCI(pts)
		slices.Sort(ms)
		s.p50, s.p99, s.maxMS = quantile(ms, 0.5), quantile(ms, 0.99), ms[len(ms)-1]
		a := r.audits[k]
		s.violations, s.auditPoints = a[0], a[1]
		out = append(out, s)
	}
	return out
}

// meanCI returns the mean and the half-width of its 95% confidence interval
// (1.96 standard errors), as the thesis's tables report.
func meanCI(v []float64) (mean, ci float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, 1.96 * math.Sqrt(ss/float64(len(v)-1)/float64(len(v)))
}

// quantile of sorted values, nearest rank.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func (r *report) write(dir string, log io.Writer) error {
	sums := r.summaries()
	if err := r.writeSummary(filepath.Join(dir, "summary.csv"), sums); err != nil {
		return err
	}
	if err := r.writeRuns(filepath.Join(dir, "runs.csv.zst")); err != nil {
		return err
	}
	if err := r.writeStores(filepath.Join(dir, "stores.csv")); err != nil {
		return err
	}
	if err := writePlots(dir, r, sums); err != nil {
		return err
	}
	md := r.markdown(sums)
	if err := atomicfile.Write(filepath.Join(dir, "README.md"), func(w io.Writer) error { _, err := io.WriteString(w, md); return err }); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s\n", dir)
	return nil
}

func (r *report) writeSummary(path string, sums []summary) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"terrain", "budget", "accounting", "method", "merge", "pairs", "mean_ms", "ci95_ms", "p50_ms", "p99_ms", "max_ms", "mean_points", "ci95_points", "violations", "audit_points"})
		for _, s := range sums {
			cw.Write([]string{s.Terrain, fmt.Sprintf("%gGiB", s.LimitGiB), s.Accounting, s.Method, s.Merge, strconv.Itoa(s.pairs),
				f3(s.meanMS), f3(s.ciMS), f3(s.p50), f3(s.p99), f3(s.maxMS), f1(s.meanPoints), f1(s.ciPoints),
				strconv.Itoa(s.violations), strconv.Itoa(s.auditPoints)})
		}
		cw.Flush()
		return cw.Error()
	})
}

func (r *report) writeRuns(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		zw, err := zstd.NewWriter(w)
		if err != nil {
			return err
		}
		cw := csv.NewWriter(zw)
		cw.Write([]string{"terrain", "budget", "accounting", "method", "merge", "pair", "a_col", "a_row", "b_col", "b_row", "points", "ms"})
		for _, x := range r.runs {
			cw.Write([]string{x.Terrain, fmt.Sprintf("%gGiB", x.LimitGiB), x.Accounting, x.Method, x.Merge, strconv.Itoa(x.Pair),
				strconv.Itoa(x.A[0]), strconv.Itoa(x.A[1]), strconv.Itoa(x.B[0]), strconv.Itoa(x.B[1]), strconv.Itoa(x.Points), strconv.FormatFloat(x.MS, 'f', 4, 64)})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return zw.Close()
	})
}

func (r *report) writeStores(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"terrain", "budget", "accounting", "points", "quads", "cap_codes", "cap_nodes", "nodes_total", "nodes_max", "memory_bytes", "file_bytes", "hidden_kept", "bake_s", "peak_rss_bytes", "load_s"})
		for _, s := range r.stores {
			cw.Write([]string{s.Terrain, fmt.Sprintf("%gGiB", s.LimitGiB), s.Accounting, strconv.Itoa(s.Points), strconv.Itoa(s.Quads),
				strconv.Itoa(s.CapCodes), strconv.Itoa(s.CapNodes), strconv.FormatInt(s.NodesTotal, 10), strconv.Itoa(s.NodesMax),
				strconv.FormatInt(s.MemoryBytes, 10), strconv.FormatInt(s.FileBytes, 10), f3(s.HiddenKept), f1(s.BakeSeconds),
				strconv.FormatInt(s.PeakRSS, 10), f3(s.LoadSeconds)})
		}
		cw.Flush()
		return cw.Error()
	})
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// thesis holds Tables 4.1–4.4: per terrain ("open" = Mars, "urban" =
// Houston) and limit (GB), the mean and 95% CI half-width in the order
// simple/lossless, simple/lossy, hierarchical/lossless, hierarchical/lossy.
var thesisMS = map[string]map[float64][4][2]float64{
	"open": {
		0.1: {{46.0, 0.9}, {12.8, 0.5}, {8.0, 0.5}, {3.4, 0.3}}, 0.25: {{103.0, 1.5}, {21.9, 0.8}, {22.2, 0.8}, {7.4, 0.4}},
		0.5: {{212.4, 2.5}, {33.8, 1.3}, {50.9, 1.3}, {13.4, 0.5}}, 1: {{405.4, 4.3}, {48.5, 1.9}, {106.7, 2.1}, {22.1, 0.7}},
	},
	"urban": {
		0.1: {{12.9, 0.4}, {2.9, 0.2}, {1.8, 0.2}, {0.6, 0.1}}, 0.25: {{66.6, 1.4}, {7.5, 0.3}, {7.8, 0.5}, {1.8, 0.2}},
		0.5: {{120.7, 2.3}, {12.2, 0.5}, {12.9, 0.8}, {3.0, 0.2}}, 1: {{290.5, 4.2}, {23.0, 0.9}, {37.0, 1.6}, {7.4, 0.4}},
	},
}

var thesisPoints = map[string]map[float64][4][2]float64{
	"open": {
		0.1: {{6201, 131}, {1521, 70}, {11757, 213}, {8072, 183}}, 0.25: {{9878, 157}, {1541, 67}, {18739, 285}, {11253, 243}},
		0.5: {{13844, 173}, {1468, 64}, {23178, 269}, {11558, 242}}, 1: {{15170, 174}, {1264, 57}, {25644, 274}, {11215, 238}},
	},
	"urban": {
		0.1: {{3480, 113}, {580, 33}, {6704, 167}, {5377, 131}}, 0.25: {{11466, 247}, {891, 47}, {18455, 326}, {10708, 236}},
		0.5: {{12897, 266}, {899, 48}, {21801, 370}, {11566, 250}}, 1: {{21322, 346}, {1000, 50}, {34628, 480}, {15392, 333}},
	},
}

// column order of the thesis's tables.
var columns = [4][2]string{{"simple", "lossless"}, {"simple", "lossy"}, {"hierarchical", "lossless"}, {"hierarchical", "lossy"}}

func (r *report) markdown(sums []summary) string {
	find := func(t string, lim float64, acc, method, merge string) *summary {
		for i := range sums {
			s := &sums[i]
			if s.Terrain == t && s.LimitGiB == lim && s.Accounting == acc && s.Method == method && s.Merge == merge {
				return s
			}
		}
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Benchmark across memory limits, %s\n\n", r.started.Format("2006-01-02"))
	slow := ""
	if r.slowPairs != r.pairs {
		slow = fmt.Sprintf(" --slow-pairs %d", r.slowPairs)
	}
	threads := "queries on one thread (GOMAXPROCS=1)"
	if r.jobs > 1 {
		slow += fmt.Sprintf(" --jobs %d", r.jobs)
		threads = fmt.Sprintf("each query on one thread; the terrains ran at once, each on its own locked OS thread and core (GOMAXPROCS=%d)", r.jobs)
	}
	if r.reuse {
		slow += " --reuse"
	}
	var names []string
	for _, mm := range r.cases {
		names = append(names, mm.method.String()+"/"+mm.merge.String())
	}
	part := r.firstPair > 0 || (len(r.cases) > 0 && len(r.cases) < len(cases))
	if len(r.cases) > 0 && len(r.cases) < len(cases) {
		slow += " --cases " + strings.Join(names, ",")
	}
	if r.firstPair > 0 {
		slow += fmt.Sprintf(" --first-pair %d", r.firstPair)
	}
	if len(r.accountings) > 0 && !slices.Equal(r.accountings, knownAccountings[:2]) {
		slow += " --accountings " + strings.Join(r.accountings, ",")
	}
	if r.maxSteps > 0 {
		slow += fmt.Sprintf(" --max-steps %d", r.maxSteps)
	}
	if len(r.terrains) == 1 {
		slow += " --terrains " + r.terrains[0].Name
	}
	if lims := fmt.Sprint(r.limitsGiB); lims != "[0.1 0.25 0.5 1]" && len(r.limitsGiB) > 0 {
		slow += " --limits " + strings.ReplaceAll(strings.Trim(lims, "[]"), " ", ",")
	}
	if len(r.combined) > 0 {
		fmt.Fprintf(&b, "Combined with `go run ./bench --combine` from the runs in `%s`; their READMEs say how each was made. Stores are those of the first.\n\n",
			strings.Join(r.combined, "`, `"))
	} else {
		fmt.Fprintf(&b, "Run with `go run ./bench --pairs %d%s --audit %d --audit-sample %d --seed %d` on this machine (%d cores, %s), "+
			"%s, after %d warm-up queries per case, GOGC=%d; %s in all.\n\n",
			r.pairs, slow, r.audit, r.auditSample, r.seed, runtime.NumCPU(), runtime.Version(), threads, r.warmup, gcPercent(), r.elapsed.Round(time.Second))
	}
	if part {
		fmt.Fprintf(&b, "**Part of a run**: pairs %d–%d of the seed's sequence, cases %s. Combine it with the other parts (`go run ./bench --combine DIR,DIR,…`).\n\n",
			r.firstPair, r.firstPair+r.pairs-1, strings.Join(names, ", "))
	} else if r.pairs < 10500 {
		fmt.Fprintf(&b, "**Reduced run**: %d pairs per case, not the thesis's 10,500; the confidence intervals are correspondingly wider.\n\n", r.pairs)
	}
	if r.slowPairs != r.pairs {
		fmt.Fprintf(&b, "**Simple/lossless ran on the first %d of each case's pairs** (the same pairs as the other methods, in the same order), "+
			"not %d: it is the slowest case by two orders of magnitude. Its confidence intervals are wider accordingly.\n\n", r.slowPairs, r.pairs)
	}
	b.WriteString("Terrains:")
	for i, t := range r.terrains {
		sep := ";"
		if i == len(r.terrains)-1 {
			sep = "."
		}
		what := map[string]string{"open": " (the thesis's 100,000-point Martian terrain)", "urban": " (its 250,000-point Houston terrain)"}[t.Name]
		if t.Window.Width > 0 {
			fmt.Fprintf(&b, " *%s* = %d×%d window (%d,%d) of `%s`%s%s", t.Name, t.Window.Width, t.Window.Height, t.Window.Col, t.Window.Row, filepath.Base(t.Path), what, sep)
		} else {
			fmt.Fprintf(&b, " *%s*%s, windows as in the parts%s", t.Name, what, sep)
		}
	}
	b.WriteString(" Limits are GiB, as the thesis's GB (Table 4.5).\n\n" +
		"Accountings: **ours** caps every PVS at the codes the byte limit allows in this project's encoding (0.3125 bytes per code + 24 bytes per quad); " +
		"**thesis** caps every PVS at limit / (quads × 3 bytes) nodes, the thesis's Table 4.5")
	if slices.ContainsFunc(r.accountingsUsed(), func(a string) bool { return strings.HasSuffix(a, "-minloss") }) {
		b.WriteString(". Both collapse, while a PVS is over its cap, the deepest leaf group last in breadth-first order (§3.4); " +
			"**ours-minloss** and **thesis-minloss** apply the same caps but collapse first the group that turns the fewest hidden cells visible (`--cap-policy min-loss`)")
	}
	if slices.ContainsFunc(r.accountingsUsed(), global) {
		fmt.Fprintf(&b, "; **ours-global** and **thesis-global** bake min-loss at %d× the limit, then spend the limit's bytes, in their accounting, on all PVSs at once (`pvsbake allocate`): "+
			"every PVS makes the collapses worth one price in hidden cells per byte saved, the price set so the store fits, no PVS above %d× the uniform cap",
			compress.DefaultCeilingFactor, compress.DefaultCeilingFactor)
	}
	if slices.Contains(r.accountingsUsed(), "ours-coded") {
		b.WriteString("; **ours-coded** bakes a coded store that fills the limit (`pvsbake bake --encoding coded`): every PVS capped min-loss at one price in hidden cells per code and coded given its parent quad's, the limit counting blocks, index, coder tables, the upper levels decoded and the cache; a query decodes every other PVS it reads")
	}
	b.WriteString(".\n\n")
	if r.maxSteps > 0 {
		fmt.Fprintf(&b, "Every query was bounded at %d quads considered (`--max-steps`): a bounded query returns the frontier set grown so far, still a valid one.\n\n", r.maxSteps)
	}
	b.WriteString("## Stores\n\n| terrain | limit | accounting | cap | nodes/PVS mean (max) | in memory | file | hidden kept | bake | peak RSS | load |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.stores {
		cp := fmt.Sprintf("%d codes", s.CapCodes)
		if s.CapNodes > 0 {
			cp = fmt.Sprintf("%d nodes", s.CapNodes)
		}
		fmt.Fprintf(&b, "| %s | %g GiB | %s | %s | %.0f (%d) | %s | %s | %.1f%% | %.0f s | %s | %.2f s |\n", s.Terrain, s.LimitGiB, s.Accounting, cp,
			float64(s.NodesTotal)/float64(s.Quads), s.NodesMax, compress.FormatBytes(s.MemoryBytes), compress.FormatBytes(s.FileBytes),
			100*s.HiddenKept, s.BakeSeconds, compress.FormatBytes(s.PeakRSS), s.LoadSeconds)
	}
	b.WriteString(r.capPolicies(find))
	for _, table := range []struct {
		title  string
		thesis map[string]map[float64][4][2]float64
		val    func(s *summary) string
	}{
		{"Mean running time (ms), mean ± 95% CI [p99, max]; thesis in italics", thesisMS,
			func(s *summary) string {
				return fmt.Sprintf("%.3f ± %.3f [%.2f, %.2f]", s.meanMS, s.ciMS, s.p99, s.maxMS)
			}},
		{"Mean frontier set size (points, both frontiers), mean ± 95% CI; thesis in italics", thesisPoints,
			func(s *summary) string { return fmt.Sprintf("%.0f ± %.0f", s.meanPoints, s.ciPoints) }},
	} {
		for _, t := range r.terrains {
			for _, acc := range r.accountingsUsed() {
				fmt.Fprintf(&b, "\n## %s — %s terrain, %s accounting\n\n| limit | simple lossless | simple lossy | hierarchical lossless | hierarchical lossy |\n|---|---|---|---|---|\n", table.title, t.Name, acc)
				for _, lim := range r.limitsGiB {
					fmt.Fprintf(&b, "| %g GiB |", lim)
					for ci, col := range columns {
						cell := "—"
						if s := find(t.Name, lim, acc, col[0], col[1]); s != nil {
							cell = table.val(s)
						}
						if th, ok := table.thesis[t.Name][lim]; ok {
							cell += fmt.Sprintf("<br>*%g ± %g*", th[ci][0], th[ci][1])
						}
						fmt.Fprintf(&b, " %s |", cell)
					}
					b.WriteString("\n")
				}
			}
		}
	}
	b.WriteString("\n## Audit\n\n")
	total, points := 0, 0
	for _, s := range sums {
		total += s.violations
		points += s.auditPoints
	}
	how := fmt.Sprintf("up to %d frontier sets per case, %d points per side", r.audit, r.auditSample)
	if len(r.combined) > 0 {
		how = "frontier sets sampled as each part's README says"
	}
	fmt.Fprintf(&b, "%d violations over %d frontier points whose uncompressed PVS was recomputed from the DEM (%s, both directions).\n",
		total, points, how)
	b.WriteString("\nPlots: `time-*.png` and `size-*.png` (distributions per case, like Figures 4.1, 4.2, 4.4, 4.5); `trend-*.png` (means against the limit, like Figures 4.3 and 4.6) are drawn from `summary.csv` and not committed (`go run ./bench --replot DIR` draws them again). Every query: `runs.csv.zst`.\n")
	return strings.ReplaceAll(b.String(), "\r", "")
}

// readRuns reads a runs.csv.zst written by writeRuns into r.runs, and sets
// r.terrains and r.limitsGiB from it (in order of appearance), so that plots
// can be drawn again from a finished run (--replot).
func (r *report) readRuns(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer zr.Close()
	cr := csv.NewReader(zr)
	cr.FieldsPerRecord = 12
	if _, err := cr.Read(); err != nil { // header
		return fmt.Errorf("%s: %w", path, err)
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		var x runRow
		var nums [6]int
		for i, s := range rec[5:11] {
			if nums[i], err = strconv.Atoi(s); err != nil {
				return fmt.Errorf("%s line %d: %q is not an integer", path, line, s)
			}
		}
		lim, err1 := strconv.ParseFloat(strings.TrimSuffix(rec[1], "GiB"), 64)
		ms, err2 := strconv.ParseFloat(rec[11], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s line %d: bad limit %q or time %q", path, line, rec[1], rec[11])
		}
		x.caseKey = caseKey{rec[0], lim, rec[2], rec[3], rec[4]}
		x.Pair, x.A, x.B, x.Points, x.MS = nums[0], [2]int{nums[1], nums[2]}, [2]int{nums[3], nums[4]}, nums[5], ms
		r.runs = append(r.runs, x)
		r.noteCase(x.caseKey)
	}
	return nil
}

// readCSV returns the records after the header of the CSV file at path,
// each of n fields.
func readCSV(path string, n int) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = n
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no header", path)
	}
	return recs[1:], nil
}

// fields parses the fields of one CSV record, keeping the first error.
type fields struct {
	rec []string
	err error
}

func (f *fields) int64(i int) int64 {
	v, err := strconv.ParseInt(f.rec[i], 10, 64)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("field %d: %q is not an integer", i+1, f.rec[i])
	}
	return v
}

func (f *fields) int(i int) int { return int(f.int64(i)) }

func (f *fields) float(i int) float64 {
	v, err := strconv.ParseFloat(strings.TrimSuffix(f.rec[i], "GiB"), 64)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("field %d: %q is not a number", i+1, f.rec[i])
	}
	return v
}

// noteCase adds k's terrain and limit to r.terrains and r.limitsGiB when
// new, keeping the order they first appear in a file read back.
func (r *report) noteCase(k caseKey) {
	if !slices.ContainsFunc(r.terrains, func(t terrain) bool { return t.Name == k.Terrain }) {
		r.terrains = append(r.terrains, terrain{Name: k.Terrain})
	}
	if !slices.Contains(r.limitsGiB, k.LimitGiB) {
		r.limitsGiB = append(r.limitsGiB, k.LimitGiB)
	}
}

// readSummaries reads a summary.csv written by writeSummary (means rounded
// as written: ms to 3 decimals, points to 1) and sets r.terrains and
// r.limitsGiB from it, in order of appearance.
func (r *report) readSummaries(path string) ([]summary, error) {
	recs, err := readCSV(path, 15)
	if err != nil {
		return nil, err
	}
	sums := make([]summary, 0, len(recs))
	for i, rec := range recs {
		f := fields{rec: rec}
		s := summary{caseKey: caseKey{rec[0], f.float(1), rec[2], rec[3], rec[4]}, pairs: f.int(5),
			meanMS: f.float(6), ciMS: f.float(7), p50: f.float(8), p99: f.float(9), maxMS: f.float(10),
			meanPoints: f.float(11), ciPoints: f.float(12), violations: f.int(13), auditPoints: f.int(14)}
		if f.err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+2, f.err)
		}
		sums = append(sums, s)
		r.noteCase(s.caseKey)
	}
	return sums, nil
}

// readAudits adds the violations and audited points of every case of a
// summary.csv written by writeSummary to r.audits.
func (r *report) readAudits(path string) error {
	recs, err := readCSV(path, 15)
	if err != nil {
		return err
	}
	for i, rec := range recs {
		f := fields{rec: rec}
		k := caseKey{rec[0], f.float(1), rec[2], rec[3], rec[4]}
		v, n := f.int(13), f.int(14)
		if f.err != nil {
			return fmt.Errorf("%s line %d: %w", path, i+2, f.err)
		}
		a := r.audits[k]
		r.audits[k] = [2]int{a[0] + v, a[1] + n}
	}
	return nil
}

// readStores reads a stores.csv written by writeStores into r.stores.
func (r *report) readStores(path string) error {
	recs, err := readCSV(path, 15)
	if err != nil {
		return err
	}
	for i, rec := range recs {
		f := fields{rec: rec}
		s := storeRow{Terrain: rec[0], LimitGiB: f.float(1), Accounting: rec[2], Points: f.int(3), Quads: f.int(4),
			CapCodes: f.int(5), CapNodes: f.int(6), NodesTotal: f.int64(7), NodesMax: f.int(8), MemoryBytes: f.int64(9),
			FileBytes: f.int64(10), HiddenKept: f.float(11), BakeSeconds: f.float(12), PeakRSS: f.int64(13), LoadSeconds: f.float(14)}
		if f.err != nil {
			return fmt.Errorf("%s line %d: %w", path, i+2, f.err)
		}
		r.stores = append(r.stores, s)
	}
	return nil
}
