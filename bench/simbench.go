package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/render"
	"github.com/frontiersets/frontiersets/internal/sim"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// simRun is one simulation as kept in runs/*.json: enough to write the
// CSVs and draw the plots again (--replot).
type simRun struct {
	Terrain   string        `json:"terrain"`
	Store     string        `json:"store"`
	Variant   string        `json:"variant"` // "" for the main runs
	Bots      int           `json:"bots"`
	Ticks     int           `json:"ticks"`
	TickS     float64       `json:"tick_s"`
	SpeedMS   float64       `json:"speed_m_s"`
	Respawn   float64       `json:"respawn_per_min"`
	HotSpot   bots.HotSpot  `json:"hot_spot"`
	Extend    bool          `json:"extend"`
	BudgetMS  float64       `json:"budget_ms"`
	Predict   int           `json:"predict_ticks"`
	Seconds   float64       `json:"wall_s"`
	Rows      []sim.Row     `json:"rows"`
	PerSecond [][]float64   `json:"per_second"` // by Rows
	Lifetimes []int32       `json:"-"`
	LifeHist  []int64       `json:"lifetime_hist_s"` // FB lifetimes in 1 s bins (last bin: longer)
	Extra     simExtra      `json:"extra"`
	Snapshot  *sim.Snapshot `json:"-"`
	Snap      *snapJSON     `json:"snapshot,omitempty"`
}

type simExtra struct {
	AOIRadiusM   float64 `json:"aoi_radius_m"`
	Standable    int     `json:"standable_cells"`
	Respawns     int     `json:"respawns"`
	ExactChecked int64   `json:"exact_checked"`
	ExactMissed  int64   `json:"exact_missed"`
	TickP99MS    float64 `json:"fb_tick_p99_ms"`
	TickMaxMS    float64 `json:"fb_tick_max_ms"`
	FBLeft       int64   `json:"fb_left"`
	Extensions   int64   `json:"fb_extensions"`
	Early        int64   `json:"fbp_early"`
	Surprised    int64   `json:"fbp_after_leaving"`
}

type snapJSON struct {
	Tick    int        `json:"tick"`
	Cells   [][2]int   `json:"cells"`
	Visible [][2]int32 `json:"visible_pairs"`
	I       int        `json:"pair_i"`
	J       int        `json:"pair_j"`
	A       [][3]int   `json:"quads"` // col,row,size: side A's, then side B's from NA on
	NA      int        `json:"quads_a"`
}

// simVariant is a configuration run beside the main one at one bot count.
type simVariant struct {
	name     string
	extend   bool
	budgetMS float64
	respawn  float64
	// hot, when > 0, sends every waypoint within hot × the grid's longer
	// extent of the grid's centre cell (bots.HotSpot).
	hot float64
	// hz is the tick rate (0: 10 Hz), delayMS the one-way delay (the
	// joint frontier's ring sized from it).
	hz, delayMS float64
}

func runSimBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench sim", "bench sim [--open STORE] [--urban STORE] [--bots 16,32,64,128,256] [--minutes 5] [--schemes LIST] [--out DIR] [--replot DIR]", stderr)
	open := fs.String("open", "/tmp/pvs-bench/open-0.5GiB-ours.pvs", "open terrain `store` (made by `go run ./bench`)")
	urban := fs.String("urban", "/tmp/pvs-bench/urban-0.5GiB-ours.pvs", "urban terrain `store`")
	botsFlag := fs.String("bots", "16,32,64,128,256", "bot `counts`")
	minutes := fs.Float64("minutes", 5, "simulated `minutes` (at 10 Hz; the rate variants at 20 and 30)")
	predict := fs.Int("predict", 5, "FBP's look-ahead in `ticks`")
	variantsAt := fs.Int("variants-at", 64, "bot count of the variant runs (no extension, 5 ms budget, respawns, a hot spot, 20 and 30 Hz, 25/50/100 ms one-way delay at 30 Hz, 20 Hz with 50 ms); 0: none")
	jobs := fs.Int("jobs", 2, "simulations at once (each runs its frontier queries on one goroutine)")
	out := fs.String("out", "", "results `dir` (default bench/results/<date>/sim)")
	replot := fs.String("replot", "", "redraw the CSVs and plots of this results `dir` from its runs/*.json")
	schemesFlag := fs.String("schemes", "", "the `schemes` to count, such as CS,GQ,RP (\"\": all); without FB and FBP, 1,024 bots are affordable and the FB variants are left out")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return cli.Usagef("bench sim takes no arguments")
	}
	if *replot != "" {
		runs, err := loadSimRuns(*replot)
		if err != nil {
			return err
		}
		return writeSimResults(*replot, runs)
	}
	var counts []int
	for _, f := range strings.Split(*botsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || n > 1024 {
			return cli.Usagef("--bots %q: want counts from 2 to 1024", *botsFlag)
		}
		counts = append(counts, n)
	}
	var schemes []sim.Scheme
	if *schemesFlag != "" {
		for _, f := range strings.Split(*schemesFlag, ",") {
			sc := sim.Scheme(strings.ToUpper(strings.TrimSpace(f)))
			if !slices.Contains(sim.Schemes, sc) {
				return cli.Usagef("--schemes: no scheme %q; want a list of %v", f, sim.Schemes)
			}
			schemes = append(schemes, sc)
		}
	}
	withFB := len(schemes) == 0 || slices.Contains(schemes, sim.FB) || slices.Contains(schemes, sim.FBP)
	if !(*minutes > 0) || *minutes > 60 || *predict < 1 || *jobs < 1 {
		return cli.Usagef("--minutes %g, --predict %d, --jobs %d: want 0 to 60, ≥ 1, ≥ 1", *minutes, *predict, *jobs)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("bench", "results", time.Now().Format("2006-01-02"), "sim")
	}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return err
	}
	variants := []simVariant{{name: "", extend: true}}
	extra := []simVariant{
		{name: "respawn", extend: true, respawn: 0.5},
		{name: "hotspot", extend: true, hot: 0.1},
		{name: "hz20", extend: true, hz: 20},
		{name: "hz30", extend: true, hz: 30},
		// At 30 Hz, so that the delays are 1, 2 and 3 ticks (at 10 Hz each
		// is one).
		{name: "hz30-delay25", extend: true, hz: 30, delayMS: 25},
		{name: "hz30-delay50", extend: true, hz: 30, delayMS: 50},
		{name: "hz30-delay100", extend: true, hz: 30, delayMS: 100},
		{name: "hz20-delay50", extend: true, hz: 20, delayMS: 50},
	}
	if withFB {
		extra = append([]simVariant{{name: "plain", extend: false}, {name: "budget5ms", extend: true, budgetMS: 5}}, extra...)
	}
	type world struct {
		name, path string
		s          *compress.Store
		gr         *grow.Grower
	}
	var worlds []*world
	for _, t := range []struct{ name, path string }{{"open", *open}, {"urban", *urban}} {
		s, err := bake.OpenStore(t.path)
		if err != nil {
			return fmt.Errorf("%w (bake the benchmark's stores with `go run ./bench --pairs 100`)", err)
		}
		gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
		if err != nil {
			return err
		}
		worlds = append(worlds, &world{t.name, t.path, s, gr})
	}
	// Every (terrain, bots, variant) is a job; the largest first, so that
	// the two cores finish together.
	type job struct {
		w *world
		n int
		v simVariant
	}
	var todo []job
	for _, w := range worlds {
		for _, n := range counts {
			vs := variants
			if n == *variantsAt {
				vs = append(slices.Clone(vs), extra...)
			}
			for _, v := range vs {
				todo = append(todo, job{w, n, v})
			}
		}
	}
	slices.SortStableFunc(todo, func(a, b job) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(b.w.name, a.w.name) // urban, the slower, first
	})
	var eg errgroup.Group
	eg.SetLimit(*jobs)
	for _, j := range todo {
		eg.Go(func() error {
			r, err := simulate(j.w.s, j.w.gr, j.w.name, j.w.path, j.n, *minutes, *predict, schemes, j.v, stderr)
			if err != nil {
				return err
			}
			return saveSimRun(dir, r)
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	runs, err := loadSimRuns(dir)
	if err != nil {
		return err
	}
	if err := writeSimResults(dir, runs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "bench sim: results in %s\n", dir)
	return nil
}

// simulate runs one configuration.
func simulate(s *compress.Store, gr *grow.Grower, terrain, path string, n int, minutes float64, predict int, schemes []sim.Scheme, v simVariant, log io.Writer) (*simRun, error) {
	bo := bots.Defaults(s.DxM, s.DyM)
	hz := cmp.Or(v.hz, 10)
	bo.Bots, bo.Ticks, bo.TickSeconds, bo.RespawnPerMin = n, int(math.Round(minutes*60*hz)), 1/hz, v.respawn
	if v.hot > 0 {
		bo.HotSpot = bots.HotSpot{Col: s.Width / 2, Row: s.Height / 2, Share: 1,
			RadiusM: v.hot * max(float64(s.Width)*s.DxM, float64(s.Height)*s.DyM)}
	}
	cfg := sim.Config{Bots: bo, Grow: grow.Options{Merge: quadpvs.Lossy, MaxSteps: grow.Unbounded}, Extend: v.extend, Predict: predict,
		Budget: time.Duration(v.budgetMS * 1e6), ExactEvery: 1000, Workers: 1, SnapshotTick: bo.Ticks / 2, Schemes: schemes,
		DelayMS: v.delayMS, JointRing: -1}
	start := time.Now()
	last := start
	cfg.Progress = func(pass string, tick, ticks int) {
		if time.Since(last) > time.Minute {
			last = time.Now()
			fmt.Fprintf(log, "%s %d bots %s: %s tick %d/%d (%.0f s)\n", terrain, n, v.name, pass, tick, ticks, time.Since(start).Seconds())
		}
	}
	r, err := sim.Run(s, gr, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s, %d bots: %w", terrain, n, err)
	}
	fmt.Fprintf(log, "%s %d bots %s: done in %.0f s\n", terrain, n, v.name, time.Since(start).Seconds())
	run := &simRun{Terrain: terrain, Store: path, Variant: v.name, Bots: n, Ticks: r.Ticks, TickS: bo.TickSeconds,
		SpeedMS: bo.SpeedMS, Respawn: v.respawn, HotSpot: bo.HotSpot, Extend: v.extend, BudgetMS: v.budgetMS, Predict: predict,
		Seconds: time.Since(start).Seconds(), Rows: r.Rows, PerSecond: r.PerSecond,
		Extra: simExtra{AOIRadiusM: r.AOIRadiusM, Standable: r.Standable, Respawns: r.Respawns, ExactChecked: r.ExactChecked,
			ExactMissed: r.ExactMissed, TickP99MS: r.TickP99MS, TickMaxMS: r.TickMaxMS, FBLeft: r.FBLeft, Extensions: r.Extensions,
			Early: r.Early, Surprised: r.Surprised}}
	tps := int(1/bo.TickSeconds + 0.5)
	run.LifeHist = make([]int64, 61)
	for _, l := range r.Lifetimes {
		run.LifeHist[min(int(l)/tps, 60)]++
	}
	if sn := r.Snapshot; sn != nil {
		js := &snapJSON{Tick: sn.Tick, Cells: sn.Cells, I: sn.I, J: sn.J}
		for _, e := range sn.Exchanges {
			if e.Reason == interest.Visible {
				js.Visible = append(js.Visible, [2]int32{e.I, e.J})
			}
		}
		if !sn.Frontier.MutuallyVisible {
			for _, q := range sn.Frontier.A.Quads {
				js.A = append(js.A, [3]int{q.Col(), q.Row(), q.Size()})
			}
			js.NA = len(js.A)
			for _, q := range sn.Frontier.B.Quads {
				js.A = append(js.A, [3]int{q.Col(), q.Row(), q.Size()})
			}
		}
		run.Snap = js
	}
	return run, nil
}

func simRunName(r *simRun) string {
	name := fmt.Sprintf("%s-%d", r.Terrain, r.Bots)
	if r.Variant != "" {
		name += "-" + r.Variant
	}
	return name + ".json"
}

func saveSimRun(dir string, r *simRun) error {
	return atomicfile.Write(filepath.Join(dir, "runs", simRunName(r)), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(r)
	})
}

func loadSimRuns(dir string) ([]*simRun, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("%s: no runs/*.json (%v)", dir, err)
	}
	var runs []*simRun
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r simRun
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		runs = append(runs, &r)
	}
	slices.SortFunc(runs, func(a, b *simRun) int {
		if c := strings.Compare(a.Terrain, b.Terrain); c != 0 {
			return c
		}
		if a.Bots != b.Bots {
			return a.Bots - b.Bots
		}
		return strings.Compare(a.Variant, b.Variant)
	})
	return runs, nil
}

// writeSimResults writes summary.csv (main runs), variants.csv (every
// scheme of the variant runs), fb.csv and the plots.
func writeSimResults(dir string, runs []*simRun) error {
	write := func(name string, header []string, rows func(w *csv.Writer)) error {
		return atomicfile.Write(filepath.Join(dir, name), func(f io.Writer) error {
			w := csv.NewWriter(f)
			_ = w.Write(header)
			rows(w)
			w.Flush()
			return w.Error()
		})
	}
	if err := write("summary.csv", sim.Header, func(w *csv.Writer) {
		for _, r := range runs {
			if r.Variant == "" {
				for _, row := range r.Rows {
					_ = w.Write(row.Record(r.Terrain, r.Bots))
				}
			}
		}
	}); err != nil {
		return err
	}
	if err := write("variants.csv", append([]string{"variant"}, sim.Header...), func(w *csv.Writer) {
		for _, r := range runs {
			if r.Variant != "" {
				for _, row := range r.Rows {
					_ = w.Write(append([]string{r.Variant}, row.Record(r.Terrain, r.Bots)...))
				}
			}
		}
	}); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	if err := write("fb.csv", []string{"terrain", "bots", "variant", "speed_m_s", "respawns", "aoi_radius_m", "fb_left", "fb_extensions",
		"fbp_early", "fbp_after_leaving", "fb_tick_p99_ms", "fb_tick_max_ms", "exact_checked", "exact_missed", "wall_s"}, func(w *csv.Writer) {
		for _, r := range runs {
			e := r.Extra
			_ = w.Write([]string{r.Terrain, strconv.Itoa(r.Bots), r.Variant, f(r.SpeedMS), strconv.Itoa(e.Respawns), f(e.AOIRadiusM),
				strconv.FormatInt(e.FBLeft, 10), strconv.FormatInt(e.Extensions, 10), strconv.FormatInt(e.Early, 10),
				strconv.FormatInt(e.Surprised, 10), f(e.TickP99MS), f(e.TickMaxMS), strconv.FormatInt(e.ExactChecked, 10),
				strconv.FormatInt(e.ExactMissed, 10), f(r.Seconds)})
		}
	}); err != nil {
		return err
	}
	if err := plotScaling(dir, runs); err != nil {
		return err
	}
	plotAt := 64 // the plots show 64 bots, or every count when none ran with 64
	if !slices.ContainsFunc(runs, func(r *simRun) bool { return r.Bots == 64 && r.Variant == "" }) {
		plotAt = -1
	}
	for _, r := range runs {
		if r.Variant != "" || (plotAt > 0 && r.Bots != plotAt) {
			continue
		}
		if err := plotSeries(filepath.Join(dir, fmt.Sprintf("packets-%s-%d.png", r.Terrain, r.Bots)), r); err != nil {
			return err
		}
		if !slices.ContainsFunc(r.Rows, func(row sim.Row) bool { return row.Scheme == sim.FB }) {
			continue // the lifetimes and the snapshot are FB's
		}
		if err := plotLifetimes(filepath.Join(dir, fmt.Sprintf("lifetimes-%s-%d.png", r.Terrain, r.Bots)), r); err != nil {
			return err
		}
		if err := drawSnapshot(filepath.Join(dir, fmt.Sprintf("snapshot-%s-%d.png", r.Terrain, r.Bots)), r); err != nil {
			return err
		}
	}
	return nil
}

func plotSeries(path string, r *simRun) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s terrain, %d bots: packets per tick (mean over each second)", r.Terrain, r.Bots)
	p.X.Label.Text = "simulated time (s)"
	p.Y.Label.Text = "packets per tick"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	for k, row := range r.Rows {
		if k >= len(r.PerSecond) {
			break
		}
		sc := row.Scheme
		pts := make(plotter.XYs, 0, len(r.PerSecond[k]))
		for x, v := range r.PerSecond[k] {
			pts = append(pts, plotter.XY{X: float64(x), Y: max(v, 0.1)})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(k)
		l.Dashes = plotutil.Dashes(k % 3)
		p.Add(l)
		p.Legend.Add(string(sc), l)
	}
	p.Legend.Top = true
	return savePlot(p, path, 8, 4.5)
}

// plotScaling draws, per terrain with main runs at two bot counts or more,
// each scheme's kbit/s received per client (p95 over clients and seconds)
// and its relevancy work per tick (p99; FB's and FBP's frontier queries,
// GQ's and RP's coordinator) against the number of bots, log–log:
// kbps-<terrain>.png and cpu-<terrain>.png.
func plotScaling(dir string, runs []*simRun) error {
	byTerrain := map[string][]*simRun{}
	for _, r := range runs {
		if r.Variant == "" {
			byTerrain[r.Terrain] = append(byTerrain[r.Terrain], r)
		}
	}
	for terrain, rs := range byTerrain {
		if len(rs) < 2 {
			continue
		}
		for _, c := range []struct {
			name, title, unit string
			value             func(sim.Row) float64
			keep              func(sim.Scheme) bool
		}{
			{"kbps", "kbit/s received per client (p95)", "kbit/s", func(r sim.Row) float64 { return r.KbpsDownP95 },
				func(sim.Scheme) bool { return true }},
			{"cpu", "relevancy work per tick on one core (p99)", "ms", func(r sim.Row) float64 { return r.QueryP99MS },
				func(sc sim.Scheme) bool {
					return sc == sim.FB || sc == sim.FBP || sc == sim.GQ || sc == sim.RP
				}},
		} {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s terrain: %s", terrain, c.title)
			p.X.Label.Text = "bots"
			p.Y.Label.Text = c.unit
			p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
			p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
			for k, sc := range sim.Schemes {
				if !c.keep(sc) {
					continue
				}
				var pts plotter.XYs
				for _, r := range rs {
					for _, row := range r.Rows {
						if row.Scheme == sc {
							pts = append(pts, plotter.XY{X: float64(r.Bots), Y: max(c.value(row), 1e-3)})
						}
					}
				}
				if len(pts) == 0 {
					continue
				}
				l, sp, err := plotter.NewLinePoints(pts)
				if err != nil {
					return err
				}
				l.Color, sp.Color = plotutil.Color(k), plotutil.Color(k)
				l.Dashes = plotutil.Dashes(k % 3)
				sp.Shape = plotutil.Shape(k)
				p.Add(l, sp)
				p.Legend.Add(string(sc), l, sp)
			}
			p.Legend.Top, p.Legend.Left = true, true
			if err := savePlot(p, filepath.Join(dir, fmt.Sprintf("%s-%s.png", c.name, terrain)), 6, 4.5); err != nil {
				return err
			}
		}
	}
	return nil
}

func plotLifetimes(path string, r *simRun) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s terrain, %d bots: how long FB's frontier sets stayed valid", r.Terrain, r.Bots)
	p.X.Label.Text = "lifetime (s; the last bar: 60 s or more)"
	p.Y.Label.Text = "frontier sets"
	vals := make(plotter.Values, len(r.LifeHist))
	for k, c := range r.LifeHist {
		vals[k] = float64(c)
	}
	b, err := plotter.NewBarChart(vals, vg.Points(5))
	if err != nil {
		return err
	}
	b.Color = plotutil.Color(0)
	b.Offset = vg.Points(2.5)
	p.Add(b)
	return savePlot(p, path, 8, 4)
}

func savePlot(p *plot.Plot, path string, w, h vg.Length) error {
	wt, err := p.WriterTo(w*vg.Inch, h*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(f io.Writer) error { _, err := wt.WriteTo(f); return err })
}

// drawSnapshot draws the bots of the snapshot tick over the hillshade at
// metric aspect: the kept pair's frontier set (A blue, B orange), the pairs
// exchanging because visible as red lines, bots as dots (the pair's two
// larger).
func drawSnapshot(path string, r *simRun) error {
	sn := r.Snap
	if sn == nil {
		return nil
	}
	s, err := bake.OpenStore(r.Store)
	if err != nil {
		return fmt.Errorf("snapshot needs the store: %w", err)
	}
	img := render.Hillshade(s.Elev, s.Width, s.Height, s.DxM, s.DyM)
	blue, orange, red := color.RGBA{30, 90, 230, 255}, color.RGBA{240, 140, 20, 255}, color.RGBA{220, 30, 30, 255}
	for k, q := range sn.A {
		c := blue
		if k >= sn.NA {
			c = orange
		}
		for y := q[1]; y < min(q[1]+q[2], s.Height); y++ {
			for x := q[0]; x < min(q[0]+q[2], s.Width); x++ {
				render.Tint(img, x, y, c, 0.45)
			}
		}
	}
	// Metric aspect, at least 2 pixels per cell along the finer spacing.
	big, sx, sy, err := render.Metric(img, s.DxM, s.DyM, 2)
	if err != nil {
		return err
	}
	px := func(c [2]int) (int, int) { return int((float64(c[0]) + 0.5) * sx), int((float64(c[1]) + 0.5) * sy) }
	for _, v := range sn.Visible {
		x0, y0 := px(sn.Cells[v[0]])
		x1, y1 := px(sn.Cells[v[1]])
		line(big, x0, y0, x1, y1, red)
	}
	for b, c := range sn.Cells {
		x, y := px(c)
		switch {
		case len(sn.A) > 0 && b == sn.I:
			render.Marker(big, x, y, 5, blue)
		case len(sn.A) > 0 && b == sn.J:
			render.Marker(big, x, y, 5, orange)
		default:
			render.Marker(big, x, y, 3, color.RGBA{20, 20, 20, 255})
		}
	}
	return render.WritePNG(path, big)
}

// line draws a one-pixel segment, blended.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for k := 0; k <= n; k++ {
		x, y := x0+(x1-x0)*k/n, y0+(y1-y0)*k/n
		if (image.Point{x, y}).In(img.Rect) {
			render.Tint(img, x, y, c, 0.8)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
