// Package sim runs bots (package bots) on a baked store and counts, tick by
// tick, the packets of every interest-management scheme of package interest
// on the same trajectories, with the frontier-based schemes audited against
// the uncompressed per-point PVS recomputed from the store's elevations
// (horizon, §3.1) and, on a sample, against the exact line of sight
// (internal/losref). It is the engine of `frontierq sim` and `bench sim`.
package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// ErrScheme reports a scheme name Run does not know.
var ErrScheme = errors.New("sim: unknown scheme")

// Config of a simulation.
type Config struct {
	// DEM is the store's grid loaded from its DEM (frontierq's storeDEM):
	// needed when the store's cells are PVS cells coarser than the
	// heightmap (its Heightmap then), whose elevations the store does not
	// keep; nil otherwise.
	DEM     *heightmap.Grid
	Bots    bots.Options
	Grow    grow.Options  // FB and FBP frontier queries
	Extend  bool          // FB and FBP extend one side silently (interest.Options.Extend)
	Budget  time.Duration // FB and FBP's frontier work per tick (interest.Options.Budget); 0: none
	Predict int           // FBP's look-ahead in ticks (≥ 1)
	// AOIRadiusM is the area-of-interest radius in metres; 0 calibrates it
	// to the distance within which 95% of the (tick, ordered pair) visible
	// by the uncompressed PVS lie.
	AOIRadiusM float64
	// ExactEvery audits one in ExactEvery of FB's silent (tick, pair)
	// against the exact line of sight between the two bots' real
	// positions (losref.PositionVisible), both ways; 0: none.
	ExactEvery int
	// Workers for the oracle's viewsheds; 0 means GOMAXPROCS. Frontier
	// queries always run on one goroutine, so their times are one core's.
	Workers int
	// SnapshotTick is the tick whose bots and frontiers Result.Snapshot
	// keeps (FB's run: none when Schemes leaves FB out); < 0 keeps none.
	SnapshotTick int
	// Schemes are the schemes to count, in any order; nil or empty: every
	// one (Schemes). Leaving out FB and FBP, whose frontier work
	// grows as the number of pairs, makes runs with many bots affordable.
	Schemes []Scheme
	// JointMaxLevel bounds the joint frontier's sides (GQ,
	// interest.JointOptions.MaxLevel); 0: its default.
	JointMaxLevel int
	// Wire sizes the packets for the byte columns; the zero value means
	// interest.DefaultWire.
	Wire interest.Wire
	// DelayMS is the one-way network delay in milliseconds (rounded up to
	// whole ticks, d) under which Row.Late is counted: a server decides on
	// positions d ticks old (CS, CSA, AOI); a peer-to-peer scheme's
	// renegotiation or a coordinator's answer takes a round trip, 2d (FB,
	// FBP, GQ); PPP's oracle and NPP are never late.
	DelayMS float64
	// JointRing is the joint frontier's ring in cells
	// (interest.JointOptions.Ring); < 0 sizes it from the delay: the
	// cells a bot can cross in a round trip, plus one.
	JointRing int
	// RegionLevel is the level of RP's region quads
	// (interest.JointOptions.Regions); 0: DefaultRegionLevel.
	RegionLevel int
	// Progress, when set, is called after each tick of each pass.
	Progress func(pass string, tick, ticks int)
}

// Row is one scheme's totals, the columns of summary.csv.
type Row struct {
	Scheme               Scheme  `json:"scheme"`
	Ticks                int     `json:"ticks"`
	Packets              int64   `json:"packets"`
	PacketsPerTick       float64 `json:"packets_per_tick"`
	PacketsPerClientTick float64 `json:"packets_per_client_tick"`
	Queries              int64   `json:"queries"`      // frontiers grown (FB, FBP)
	QueryP50MS           float64 `json:"query_p50_ms"` // frontier work per tick (summed query time), percentiles over ticks
	QueryP99MS           float64 `json:"query_p99_ms"`
	QueryMaxMS           float64 `json:"query_max_ms"`
	LifetimeMeanS        float64 `json:"lifetime_mean_s"` // mean validity of the frontiers replaced during the run
	Missed               int64   `json:"missed"`          // (tick, ordered pair) where the receiver sees the sender by the uncompressed PVS and gets nothing
	// Bytes on the wire (Config.Wire): every packet once, headers included;
	// kbit/s per client and second, sent (up) and received (down); a
	// server's or coordinator's traffic, in and out together (CS, CSA, GQ).
	Bytes          int64   `json:"bytes"`
	KbpsUpMean     float64 `json:"kbps_up_mean"`
	KbpsUpP95      float64 `json:"kbps_up_p95"`
	KbpsUpMax      float64 `json:"kbps_up_max"`
	KbpsDownMean   float64 `json:"kbps_down_mean"`
	KbpsDownP95    float64 `json:"kbps_down_p95"`
	KbpsDownMax    float64 `json:"kbps_down_max"`
	ServerMbps     float64 `json:"server_mbps"`
	ServerPeakMbps float64 `json:"server_peak_mbps"`
	// Hz is the tick rate; DelayMS the one-way delay modelled
	// (Config.DelayMS, used in whole ticks rounded up); Late the ordered pair-ticks where
	// the receiver sees the sender but the decisions in force did not send
	// its updates (lagAudit; with no delay, the misses).
	Hz      float64 `json:"hz"`
	DelayMS float64 `json:"delay_ms"`
	Late    int64   `json:"late"`
	// LateSilent are the late pair-ticks a silent decision held (the
	// frontier schemes' own share; the rest is the delay of any scheme
	// that sends by visibility).
	LateSilent int64 `json:"late_silent"`
}

// Header is summary.csv's header: Row.Record's columns.
var Header = []string{"terrain", "bots", "scheme", "ticks", "packets", "packets_per_tick", "packets_per_client_tick",
	"queries", "query_p50_ms", "query_p99_ms", "query_max_ms", "lifetime_mean_s", "missed",
	"hz", "delay_ms", "bytes", "kbps_up_p95", "kbps_down_p95", "cpu_p99_ms", "late"}

// Record formats r as a summary.csv row for a terrain and bot count.
func (r Row) Record(terrain string, bots int) []string {
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	return []string{terrain, strconv.Itoa(bots), string(r.Scheme), strconv.Itoa(r.Ticks), strconv.FormatInt(r.Packets, 10),
		f(r.PacketsPerTick, 2), f(r.PacketsPerClientTick, 3), strconv.FormatInt(r.Queries, 10),
		f(r.QueryP50MS, 4), f(r.QueryP99MS, 4), f(r.QueryMaxMS, 4), f(r.LifetimeMeanS, 2), strconv.FormatInt(r.Missed, 10),
		f(r.Hz, 2), f(r.DelayMS, 1), strconv.FormatInt(r.Bytes, 10), f(r.KbpsUpP95, 2), f(r.KbpsDownP95, 2), f(r.QueryP99MS, 4),
		strconv.FormatInt(r.Late, 10)}
}

// Snapshot is one tick's picture: bots, the pairs exchanging updates in FB,
// and one pair's frontier set.
type Snapshot struct {
	Tick      int
	Cells     [][2]int
	Exchanges []interest.Exchange
	I, J      int         // the pair whose frontier is kept (I's side is Frontier.A)
	Frontier  grow.Result // MutuallyVisible when no pair of bot 0 held one
}

// Result of a simulation.
type Result struct {
	Bots, Ticks int
	Rows        []Row
	// PerSecond[s][k] is scheme Rows[s]'s mean packets per tick in
	// second k of the run.
	PerSecond [][]float64
	Lifetimes []int32 // FB's replaced frontiers' lifetimes, ticks
	// AOIRadiusM is the radius used; Standable the cells bots live on;
	// Respawns the teleports.
	AOIRadiusM float64
	Standable  int
	Respawns   int
	// ExactChecked silent FB (tick, pair) were checked against the exact
	// line of sight between the bots' positions; ExactMissed of them were
	// visible in one direction (stores of the point models promise
	// nothing between samples; the region model's must miss none).
	ExactChecked, ExactMissed int64
	// TickP99MS and TickMaxMS are FB's whole Manager.Tick wall times.
	TickP99MS, TickMaxMS float64
	// Surprised counts FBP's renegotiations for a player that had already
	// left (Reason Left), Early those made before (Predicted); FB's Left
	// count is FBLeft.
	Surprised, Early, FBLeft int64
	// Extensions are FB's silent extensions (Config.Extend).
	Extensions int64
	// GQ and RP break the joint frontier's and the region-pair frontiers'
	// packets down; JointRing is the ring their runs used, in cells,
	// RegionLevel RP's region level.
	GQ, RP      GQCounts
	JointRing   int
	RegionLevel int
	// VON breaks the Voronoi overlay's traffic down, VG the gated one's.
	VON VONCounts
	VG  VGCounts
	// Snapshot is FB's at Config.SnapshotTick, or nil.
	Snapshot *Snapshot
}

// Run simulates cfg.Bots on store s (whose grower is gr). Errors come from
// the options (ErrScheme for a scheme not in Schemes), the bots and
// the manager, and wrap fault.ErrFault when the store's file was cut or
// changed under it (its elevations and trees are read where they are
// mapped).
//
// It makes two passes over the ticks with the oracle — the visibility
// pass, which counts the schemes that send by who needs whose updates
// (schemeSpec.needs) and HY beside it, then the AOI pass once the radius
// is known — and then runs every scheme with a protocol of its own over
// the whole paths (schemeSpec.protocol).
func Run(s *compress.Store, gr *grow.Grower, cfg Config) (_ *Result, err error) {
	defer fault.Recover(&err, fault.Arm())
	if cfg.Predict < 1 || cfg.AOIRadiusM < 0 || cfg.ExactEvery < 0 || cfg.Workers < 0 {
		return nil, fmt.Errorf("sim: predict %d ticks, AOI radius %g m, exact every %d, %d workers: want ≥ 1, ≥ 0, ≥ 0, ≥ 0",
			cfg.Predict, cfg.AOIRadiusM, cfg.ExactEvery, cfg.Workers)
	}
	want := map[Scheme]bool{}
	for _, sc := range cfg.Schemes {
		if !slices.Contains(Schemes, sc) {
			return nil, fmt.Errorf("%w: %q", ErrScheme, sc)
		}
		want[sc] = true
	}
	if len(want) == 0 {
		for _, sc := range Schemes {
			want[sc] = true
		}
	}
	t := bots.Terrain{Width: s.Width, Height: s.Height, Elev: s.Elev, Nodata: s.Nodata, Dx: s.DxM, Dy: s.DyM}
	paths, err := bots.Run(t, cfg.Bots)
	if err != nil {
		return nil, err
	}
	n, T := paths.Bots, paths.Ticks
	r := &Result{Bots: n, Ticks: T, Standable: paths.Standable}
	for _, x := range paths.Respawned {
		if x {
			r.Respawns++
		}
	}
	o, err := newOracle(s, gr, paths, cfg)
	if err != nil {
		return nil, err
	}
	x := &run{cfg: cfg, gr: gr, o: o, paths: paths, n: n, T: T, w: wire(cfg), r: r}
	accounts := map[Scheme]*account{}
	secTicks := ticksPerSecond(cfg)
	for sc := range want {
		a := &account{packets: make([]int64, T), m: newMeter(n, secTicks, cfg.Bots.TickSeconds)}
		if lead := schemeSpecs[sc].lead; lead != noAudit {
			a.la = newLagAudit(n, lead*delayTicks(cfg), delayTicks(cfg))
		}
		accounts[sc] = a
	}
	// count adds tick tk's packets and bytes of a scheme that sends by
	// needs, and audits them.
	count := func(sc Scheme, tk int, needs func(i, j int) bool) {
		a := accounts[sc]
		a.packets[tk] = int64(Packets(sc, n, needs))
		a.m.tick(Traffic(sc, n, needs, x.w, a.m.up, a.m.down))
		if a.la != nil {
			a.la.tick(tk, nil, needs, o)
		}
	}
	var hy *hybrid
	if want[HY] {
		if hy, err = newHybrid(x); err != nil {
			return nil, err
		}
	}
	hist := newDistHist(math.Hypot(float64(s.Width)*s.DxM, float64(s.Height)*s.DyM))
	for tk := range T {
		if err := o.advance(tk); err != nil {
			return nil, err
		}
		for i := range n {
			for j := range n {
				if i != j && o.sees(i, j) {
					hist.add(o.dist(tk, i, j))
				}
			}
		}
		o.keep(tk)
		for _, sc := range Schemes {
			if f := schemeSpecs[sc].needs; f != nil && want[sc] {
				count(sc, tk, f(o))
			}
		}
		if hy != nil {
			if err := hy.tick(x, tk, accounts[HY]); err != nil {
				return nil, err
			}
		}
		if cfg.Progress != nil {
			cfg.Progress("visibility", tk+1, T)
		}
	}
	r.AOIRadiusM = cfg.AOIRadiusM
	if r.AOIRadiusM == 0 {
		r.AOIRadiusM = hist.quantile(0.95)
	}
	rows := map[Scheme]*Row{}
	if want[AOI] {
		row := &Row{Scheme: AOI}
		r2 := r.AOIRadiusM * r.AOIRadiusM
		for tk := range T {
			near := func(i, j int) bool { return o.dist2(tk, i, j) <= r2 }
			count(AOI, tk, near)
			for i := range n {
				for j := range n {
					if i != j && o.seesAt(tk, i, j) && !near(i, j) {
						row.Missed++
					}
				}
			}
		}
		rows[AOI] = row
	}
	if hy != nil {
		rows[HY] = hy.finish()
	}
	for _, sc := range Schemes {
		if f := schemeSpecs[sc].protocol; f != nil && want[sc] {
			row, err := f(x, accounts[sc])
			if err != nil {
				return nil, err
			}
			rows[sc] = row
		}
	}
	for _, sc := range Schemes {
		if !want[sc] {
			continue
		}
		row := rows[sc]
		if row == nil {
			row = &Row{Scheme: sc}
		}
		r.Rows = append(r.Rows, *row)
		r.PerSecond = append(r.PerSecond, accounts[sc].close(&r.Rows[len(r.Rows)-1], cfg, n))
	}
	return r, nil
}

// close completes row from a's tallies over the run — its ticks, packets,
// bytes and late pair-ticks — and returns its mean packets per tick in
// each second of the run.
func (a *account) close(row *Row, cfg Config, n int) []float64 {
	T := len(a.packets)
	row.Ticks = T
	a.m.fill(row, float64(T)*cfg.Bots.TickSeconds)
	row.Hz = 1 / cfg.Bots.TickSeconds
	row.DelayMS = cfg.DelayMS
	if a.la != nil {
		row.Late, row.LateSilent = a.la.late, a.la.lateSilent
	}
	for _, c := range a.packets {
		row.Packets += c
	}
	row.PacketsPerTick = float64(row.Packets) / float64(T)
	row.PacketsPerClientTick = row.PacketsPerTick / float64(n)
	var ps []float64
	secTicks := ticksPerSecond(cfg)
	for k := 0; k < T; k += secTicks {
		e := min(k+secTicks, T)
		var sum int64
		for _, c := range a.packets[k:e] {
			sum += c
		}
		ps = append(ps, float64(sum)/float64(e-k))
	}
	return ps
}

// run is one simulation under way: what every scheme's count reads.
type run struct {
	cfg   Config
	gr    *grow.Grower
	o     *oracle
	paths *bots.Paths
	n, T  int
	w     interest.Wire
	r     *Result // the run's counts beside the rows (FB's lifetimes, GQ's packets by kind, …)
}

// account is one scheme's tallies: its packets per tick, its bytes and its
// late pair-ticks (nil for a scheme never late).
type account struct {
	packets []int64
	m       *meter
	la      *lagAudit
}

// schemeSpec says how Run counts a scheme.
type schemeSpec struct {
	// lead is the lag audit's delay before a pair's opening or silencing
	// is in force, in one-way delays (lagAudit's lagOpen): 0 where a server
	// decides on the positions it sees, 2 where a renegotiation or a
	// coordinator's answer takes a round trip; noAudit for the schemes
	// never late (NPP, PPP's oracle).
	lead int
	// needs, for a scheme that sends by who needs whose updates (Packets,
	// Traffic), returns that relation at the visibility pass's tick.
	needs func(o *oracle) func(i, j int) bool
	// protocol, for a scheme with a protocol of its own, runs it over the
	// whole paths after the two passes and returns its row.
	protocol func(x *run, a *account) (*Row, error)
}

const noAudit = -1

// schemeSpecs are Run's schemes. AOI is counted in the AOI pass, once the
// radius is known, and HY beside the visibility pass, which knows the
// tick's may-see relation (hybrid).
var schemeSpecs = map[Scheme]schemeSpec{
	NPP: {lead: noAudit, needs: func(*oracle) func(i, j int) bool { return nil }},
	PPP: {lead: noAudit, needs: func(o *oracle) func(i, j int) bool { return o.sees }},
	CS:  {needs: func(o *oracle) func(i, j int) bool { return o.maySee }},
	CSA: {needs: func(o *oracle) func(i, j int) bool { return o.maySee }},
	AOI: {},
	VON: {protocol: (*run).von},
	FB:  {lead: 2, protocol: func(x *run, a *account) (*Row, error) { return x.fb(a, 0) }},
	FBP: {lead: 2, protocol: func(x *run, a *account) (*Row, error) { return x.fb(a, x.cfg.Predict) }},
	GQ:  {lead: 2, protocol: func(x *run, a *account) (*Row, error) { return x.joint(a, GQ) }},
	RP:  {lead: 2, protocol: func(x *run, a *account) (*Row, error) { return x.joint(a, RP) }},
	VG:  {lead: 2, protocol: (*run).vg},
	HY:  {lead: 2},
}

// fb runs a Manager (prediction pred ticks, 0 for FB) over the paths,
// fills a's packets per tick and returns its row.
func (x *run) fb(a *account, pred int) (*Row, error) {
	gr, o, paths, cfg, r := x.gr, x.o, x.paths, x.cfg, x.r
	packets, tm, la := a.packets, a.m, a.la
	n, T := paths.Bots, paths.Ticks
	sc := FB
	if pred > 0 {
		sc = FBP
	}
	m, err := interest.New(gr, n, interest.Options{Grow: cfg.Grow, Workers: 1, Predict: pred, Extend: cfg.Extend, Budget: cfg.Budget})
	if err != nil {
		return nil, err
	}
	row := &Row{Scheme: sc}
	players := make([]interest.Player, n)
	work := make([]float64, T)
	tickMS := make([]float64, T)
	talk := make([]uint64, (n*n+63)/64)
	var lifeSum, lifeN int64
	exactK := 0
	// Line of sight between real positions, on the heightmap: a position
	// x in PVS cells of k heightmap cells lies at k·x + (k−1)/2 on it.
	lg, k := losref.Grid{Width: o.s.Width, Height: o.s.Height, Elev: o.s.Elev}, 1.0
	if hm := cfg.DEM; hm != nil && hm.Heightmap != nil {
		lg, k = losref.Grid{Width: hm.Heightmap.Width, Height: hm.Heightmap.Height, Elev: hm.Heightmap.Elev}, float64(hm.PVSCell)
	}
	fineX := func(v float64) float64 { return heightmapPos(v, k, lg.Width) }
	fineY := func(v float64) float64 { return heightmapPos(v, k, lg.Height) }
	hp := o.s.Params.Horizon()
	los := losref.Positions{Grid: lg, HObs: hp.ObserverHeight, Tau: hp.TargetHeight, PerCell: exactPerCell,
		Dx: o.s.DxM / k, Dy: o.s.DyM / k, MaxDistance: hp.MaxDistance}
	w := x.w
	for tk := range T {
		for b := range n {
			k := tk*n + b
			c, v, p := paths.Cells[k], paths.Vel[k], paths.Pos[k]
			players[b] = interest.Player{Col: int(c[0]), Row: int(c[1]), FCol: float64(p[0]) - float64(c[0]), FRow: float64(p[1]) - float64(c[1]),
				VCol: float64(v[0]), VRow: float64(v[1])}
		}
		start := time.Now()
		res, err := m.Tick(players)
		if err != nil {
			return nil, fmt.Errorf("tick %d: %w", tk, err)
		}
		tickMS[tk] = float64(time.Since(start).Nanoseconds()) / 1e6
		packets[tk] = 0
		row.Queries += int64(res.Queries)
		if pred == 0 {
			r.Extensions += int64(res.Extensions)
		}
		work[tk] = float64(res.QueryTime.Nanoseconds()) / 1e6
		for _, l := range res.Lifetimes {
			lifeSum += int64(l)
			lifeN++
			if pred == 0 {
				r.Lifetimes = append(r.Lifetimes, l)
			}
		}
		clear(talk)
		for _, e := range res.Exchanges {
			i, j := int(e.I), int(e.J)
			packets[tk] += int64(e.Packets())
			e.Traffic(w, tm.up, tm.down)
			if e.Dir&interest.IToJ != 0 { // talk[i·n+j]: i sends to j
				talk[(i*n+j)>>6] |= 1 << ((i*n + j) & 63)
			}
			if e.Dir&interest.JToI != 0 {
				talk[(j*n+i)>>6] |= 1 << ((j*n + i) & 63)
			}
			switch {
			case e.Reason == interest.Left && pred == 0:
				r.FBLeft++
			case e.Reason == interest.Left:
				r.Surprised++
			case e.Reason == interest.Predicted:
				r.Early++
			}
		}
		tm.tick(0, 0)
		la.tick(tk, func(i, j int) bool { _, held := m.Frontier(i, j); return !held },
			func(i, j int) bool { return talk[(i*n+j)>>6]>>((i*n+j)&63)&1 != 0 }, o)
		// Audit: whoever sees a player gets its updates; a silent pair
		// must be hidden both ways.
		sends := func(i, j int) bool { return talk[(i*n+j)>>6]>>((i*n+j)&63)&1 != 0 }
		for i := range n {
			for j := i + 1; j < n; j++ {
				if o.seesAt(tk, i, j) && !sends(i, j) {
					row.Missed++
				}
				if o.seesAt(tk, j, i) && !sends(j, i) {
					row.Missed++
				}
				if sends(i, j) || sends(j, i) {
					continue
				}
				if pred == 0 && cfg.ExactEvery > 0 {
					if exactK++; exactK%cfg.ExactEvery == 0 {
						a, b := players[i], players[j]
						r.ExactChecked++
						// Between the bots' real positions, not their cells'
						// samples: what players see.
						ax, ay := fineX(float64(a.Col)+a.FCol), fineY(float64(a.Row)+a.FRow)
						bx, by := fineX(float64(b.Col)+b.FCol), fineY(float64(b.Row)+b.FRow)
						// Both ways; the store's view distance ends every line of
						// sight, between positions as between cells.
						if los.Clearance(ax, ay, bx, by) >= 0 || los.Clearance(bx, by, ax, ay) >= 0 {
							r.ExactMissed++
						}
					}
				}
			}
		}
		if pred == 0 && tk == cfg.SnapshotTick {
			r.Snapshot = snapshot(m, tk, players, res)
		}
		if cfg.Progress != nil {
			cfg.Progress(string(sc), tk+1, T)
		}
	}
	if lifeN > 0 {
		row.LifetimeMeanS = float64(lifeSum) / float64(lifeN) * cfg.Bots.TickSeconds
	}
	row.QueryP50MS, row.QueryP99MS, row.QueryMaxMS = percentiles(work)
	if pred == 0 {
		_, r.TickP99MS, r.TickMaxMS = percentiles(tickMS)
	}
	return row, nil
}

// joint runs the joint frontier (GQ) or region-pair frontiers (RP), both
// an interest.Joint, over the paths, fills a's packets per tick and returns
// its row: Queries are the exits, the query times the coordinator's work per
// tick, Missed audited as FB's.
func (x *run) joint(a *account, sc Scheme) (*Row, error) {
	gr, o, paths, cfg, r := x.gr, x.o, x.paths, x.cfg, x.r
	packets, m, la := a.packets, a.m, a.la
	n, T := paths.Bots, paths.Ticks
	opt := jointOptions(cfg, o)
	r.JointRing = opt.Ring
	counts := &r.GQ
	if sc == RP {
		opt.Regions = cmp.Or(cfg.RegionLevel, DefaultRegionLevel)
		r.RegionLevel = opt.Regions
		counts = &r.RP
	}
	jt, err := interest.NewJoint(gr, n, opt)
	if err != nil {
		return nil, err
	}
	row := &Row{Scheme: sc}
	players := make([]interest.Player, n)
	work := make([]float64, T)
	for tk := range T {
		res, err := jt.Tick(cellsAt(paths, tk, players))
		if err != nil {
			return nil, fmt.Errorf("%s, tick %d: %w", sc, tk, err)
		}
		packets[tk] = int64(res.Packets())
		for i := range n {
			m.up[i] += res.Up[i]
			m.down[i] += res.Down[i]
		}
		m.tick(res.ServerIn, res.ServerOut)
		la.tick(tk, func(i, j int) bool { return !jt.Silent(i, j) }, jt.Sends, o)
		row.Queries += int64(res.Exits)
		work[tk] = float64(res.Work.Nanoseconds()) / 1e6
		counts.Uplinks += int64(res.Exits)
		counts.Downlinks += int64(res.Downlinks)
		counts.Messages += int64(res.Messages)
		counts.Updates += int64(res.Updates)
		counts.Announcements += int64(res.Announcements)
		counts.Flips += int64(res.Flips)
		counts.Open += int64(res.Open)
		counts.Lookups += res.Lookups
		counts.Walks += res.Walks
		row.Missed += jointMissed(o, jt, tk, n)
		if cfg.Progress != nil {
			cfg.Progress(string(sc), tk+1, T)
		}
	}
	row.QueryP50MS, row.QueryP99MS, row.QueryMaxMS = percentiles(work)
	return row, nil
}

// cellsAt fills players with the bots' cells at tick tk and returns it.
func cellsAt(paths *bots.Paths, tk int, players []interest.Player) []interest.Player {
	n := len(players)
	for b := range players {
		c := paths.Cells[tk*n+b]
		players[b] = interest.Player{Col: int(c[0]), Row: int(c[1])}
	}
	return players
}

// jointMissed counts tick tk's ordered pairs of n players in which the
// receiver sees the sender by the uncompressed PVS but jt does not send.
func jointMissed(o *oracle, jt *interest.Joint, tk, n int) int64 {
	var k int64
	for i := range n {
		for j := range n {
			if i != j && o.seesAt(tk, i, j) && !jt.Sends(i, j) {
				k++
			}
		}
	}
	return k
}

// DefaultRegionLevel is RP's region level when Config.RegionLevel is 0:
// quads of 8×8 cells. Measured at 1,024 bots on the benchmark's 0.5 GiB
// stores (docs/interest.md): level 2 sends the fewest packets (RP/CS 1.086
// against 1.252 in the town) but its coordinator's p99 is 7.7 ms and it
// remembers up to 64 MiB of region pairs; level 3's p99 is 1.8–2.3 ms.
const DefaultRegionLevel = 3

// GQCounts are the joint frontier's packets by kind, summed over the run
// (interest.JointTickResult), its open pair-ticks and its quad-PVS lookups.
type GQCounts struct {
	Uplinks       int64 `json:"uplinks"`
	Downlinks     int64 `json:"downlinks"`
	Messages      int64 `json:"messages"`
	Updates       int64 `json:"updates"`
	Announcements int64 `json:"announcements"`
	Flips         int64 `json:"flips"`
	Open          int64 `json:"open"`
	Lookups       int64 `json:"lookups"`
	Walks         int64 `json:"walks"`
}

// snapshot keeps tick tk's bots, exchanges and bot 0's largest frontier.
func snapshot(m *interest.Manager, tk int, players []interest.Player, res *interest.TickResult) *Snapshot {
	sn := &Snapshot{Tick: tk, Exchanges: slices.Clone(res.Exchanges), Frontier: grow.Result{MutuallyVisible: true}}
	for _, p := range players {
		sn.Cells = append(sn.Cells, [2]int{p.Col, p.Row})
	}
	best := -1
	for j := 1; j < len(players); j++ {
		if f, ok := m.Frontier(0, j); ok && f.A.Points+f.B.Points > best {
			best, sn.I, sn.J, sn.Frontier = f.A.Points+f.B.Points, 0, j, f.Clone()
		}
	}
	return sn
}

// percentiles returns the 50th and 99th percentiles (nearest rank) and the
// maximum of v.
func percentiles(v []float64) (p50, p99, mx float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)] }
	return at(0.5), at(0.99), s[len(s)-1]
}

// oracle keeps who sees whom, tick by tick: the uncompressed per-point PVS
// (a viewshed per bot, recomputed when its cell changes) and the store's
// per-point PVS (grow.Grower.MaySee).
type oracle struct {
	s       *compress.Store
	gr      *grow.Grower
	paths   *bots.Paths
	n       int
	workers []*horizon.Worker
	bm      []horizon.Bitmap
	cur     [][2]int
	seeM    []bool // seeM[i*n+j]: j sees i (uncompressed)
	mayM    []bool // j may see i (store)
	hist    [][]uint64
	dx, dy  float64
}

func newOracle(s *compress.Store, gr *grow.Grower, p *bots.Paths, cfg Config) (*oracle, error) {
	model, err := bake.StoreModel(s)
	if d := cfg.DEM; errors.Is(err, bake.ErrNeedsHeightmap) && d != nil && d.Heightmap != nil && d.Width == s.Width && d.Height == s.Height {
		model, err = horizon.New(bake.Terrain(d), s.Params.Horizon())
	}
	if err != nil {
		return nil, fmt.Errorf("the simulation's oracle: %w", err)
	}
	w := cfg.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	o := &oracle{s: s, gr: gr, paths: p, n: p.Bots, bm: make([]horizon.Bitmap, p.Bots), cur: make([][2]int, p.Bots),
		seeM: make([]bool, p.Bots*p.Bots), mayM: make([]bool, p.Bots*p.Bots), hist: make([][]uint64, p.Ticks), dx: s.DxM, dy: s.DyM}
	for range min(w, p.Bots) {
		o.workers = append(o.workers, model.NewWorker())
	}
	for b := range o.bm {
		o.bm[b] = horizon.NewBitmap(s.Width, s.Height)
		o.cur[b] = [2]int{-1, -1}
	}
	return o, nil
}

func (o *oracle) sees(i, j int) bool   { return o.seeM[i*o.n+j] }
func (o *oracle) maySee(i, j int) bool { return o.mayM[i*o.n+j] }

// seesAt reports whether j sees i at tick tk (kept by keep).
func (o *oracle) seesAt(tk, i, j int) bool { return o.hist[tk][(i*o.n+j)>>6]>>((i*o.n+j)&63)&1 != 0 }

func (o *oracle) dist2(tk, i, j int) float64 {
	a, b := o.paths.Pos[tk*o.n+i], o.paths.Pos[tk*o.n+j]
	dx, dy := float64(a[0]-b[0])*o.dx, float64(a[1]-b[1])*o.dy
	return dx*dx + dy*dy
}

func (o *oracle) dist(tk, i, j int) float64 { return math.Sqrt(o.dist2(tk, i, j)) }

// advance moves the bots to tick tk: new viewsheds for those that changed
// cell, then the rows and columns of both matrices that involve them.
func (o *oracle) advance(tk int) error {
	n := o.n
	var moved []int
	for b := range n {
		c := o.paths.Cells[tk*n+b]
		if cc := [2]int{int(c[0]), int(c[1])}; cc != o.cur[b] {
			o.cur[b] = cc
			moved = append(moved, b)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, len(o.workers))
	for x, wk := range o.workers {
		wg.Go(func() {
			for k := x; k < len(moved); k += len(o.workers) {
				b := moved[k]
				var err error
				if o.bm[b], err = wk.Viewshed(o.cur[b][0], o.cur[b][1], o.bm[b]); err != nil {
					errs[x] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	isMoved := make([]bool, n)
	for _, b := range moved {
		isMoved[b] = true
	}
	for i := range n {
		for j := range n {
			if i == j || (!isMoved[i] && !isMoved[j]) {
				continue
			}
			ci, cj := o.cur[i], o.cur[j]
			o.seeM[i*n+j] = o.bm[j].Visible(ci[0], ci[1])
			if ci == cj {
				o.mayM[i*n+j] = true
				continue
			}
			may, err := o.gr.MaySee(cj, ci)
			if err != nil {
				return err
			}
			o.mayM[i*n+j] = may
		}
	}
	return nil
}

// keep records tick tk's uncompressed matrix for the audits.
func (o *oracle) keep(tk int) {
	h := make([]uint64, (o.n*o.n+63)/64)
	for k, v := range o.seeM {
		if v {
			h[k>>6] |= 1 << (k & 63)
		}
	}
	o.hist[tk] = h
}

// distHist is a histogram of distances, for the AOI radius's quantile.
type distHist struct {
	max    float64
	counts []int64
	total  int64
}

func newDistHist(max float64) *distHist { return &distHist{max: max, counts: make([]int64, 1<<14)} }

func (h *distHist) add(d float64) {
	k := min(int(d/h.max*float64(len(h.counts))), len(h.counts)-1)
	h.counts[k]++
	h.total++
}

// quantile returns the upper edge of the bin holding quantile q; 0 when
// empty.
func (h *distHist) quantile(q float64) float64 {
	var acc int64
	for k, c := range h.counts {
		if acc += c; acc > 0 && float64(acc) >= q*float64(h.total) {
			return float64(k+1) / float64(len(h.counts)) * h.max
		}
	}
	return 0
}

// heightmapPos returns position v in PVS cells of k heightmap cells as a
// position on a heightmap of n samples along that axis: k·v + (k−1)/2,
// clamped to [0, n−1]. A bot in a PVS cell that the heightmap only partly
// covers (the last row and column of a 4097² map in 8 m cells cover one
// sample) may stand past the last sample: it stands at the terrain's edge,
// inside the cell's square clipped to the heightmap, which the region
// model judges.
func heightmapPos(v, k float64, n int) float64 {
	return min(max(k*v+(k-1)/2, 0), float64(n-1))
}

// exactPerCell is how many times per cell the exact audit samples a line
// of sight between two bots' positions.
const exactPerCell = 16

// ticksPerSecond is the tick rate, rounded, at least 1.
func ticksPerSecond(cfg Config) int { return max(1, int(math.Round(1/cfg.Bots.TickSeconds))) }

// delayTicks is Config.DelayMS in whole ticks, rounded up: what arrives
// during a tick is used at the next.
func delayTicks(cfg Config) int {
	return int(math.Ceil(cfg.DelayMS/1000/cfg.Bots.TickSeconds - 1e-9))
}

// jointOptions are the joint frontier's options for GQ and HY: the ring
// sized from the delay when Config.JointRing is negative.
func jointOptions(cfg Config, o *oracle) interest.JointOptions {
	ring := cfg.JointRing
	if ring < 0 {
		ring = autoRing(cfg, o.dx, o.dy)
	}
	return interest.JointOptions{MaxLevel: cfg.JointMaxLevel, Wire: wire(cfg), Ring: ring}
}

// autoRing is the joint frontier's ring for the configured delay: the cells
// a bot at the configured speed crosses in a round trip (2d ticks), plus
// one; 0 without delay.
func autoRing(cfg Config, dx, dy float64) int {
	d := delayTicks(cfg)
	if d == 0 {
		return 0
	}
	return int(math.Ceil(cfg.Bots.SpeedMS*float64(2*d)*cfg.Bots.TickSeconds/min(dx, dy))) + 1
}
