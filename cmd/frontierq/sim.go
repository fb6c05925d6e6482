package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/sim"
)

// simCmd moves bots over a store's terrain and prints, per interest
// management scheme, the packets sent (Steed & Angus Table 2), the frontier
// work and lifetimes, and the audit (internal/sim).
func simCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "sim STORE", Short: "Move bots over a store's terrain and count each interest-management scheme's packets", Args: cli.Args("STORE")}
	fs := c.Flags()
	var f simFlags
	f.register(fs)
	c.RunE = func(_ *cobra.Command, pos []string) error {
		sc, err := f.check()
		if err != nil {
			return err
		}
		return f.run(pos[0], sc, fs, stdout, stderr)
	}
	return c
}

// simFlags are sim's flags.
type simFlags struct {
	grow                                       growFlags
	dem                                        cli.DEMFlags
	bots, predict, exactEvery, ring, regionLvl int
	minutes, hz, speed, slope, respawn         float64
	aoi, budgetMS, delayMS                     float64
	seed                                       uint64
	hotSpot, demPath, schemes                  string
	extend, csv, quiet                         bool
	json                                       *bool
}

// register declares f's flags on fs.
func (f *simFlags) register(fs *pflag.FlagSet) {
	f.grow.register(fs)
	m := fs.Lookup("merge") // lossy by default here: a server's choice (§4: faster, same guarantee)
	m.DefValue = "lossy"
	_ = m.Value.Set("lossy")
	fs.IntVar(&f.bots, "bots", 16, "number of `bots` (2 to 1024)")
	fs.Float64Var(&f.minutes, "minutes", 5, "simulated `minutes`")
	fs.Float64Var(&f.hz, "hz", 10, "ticks per second (10: Quake II's server rate)")
	fs.Float64Var(&f.speed, "speed", 0, "bot speed in `m/s` (0: 1.4 on grids finer than 5 m, 15 on coarser ones)")
	fs.Float64Var(&f.slope, "max-slope", 0, "steepest walkable step, rise over run (0: 1 on grids finer than 5 m, 0.5 on coarser ones)")
	fs.Float64Var(&f.respawn, "respawn", 0, "teleports per bot per `minute`, like deaths in a match")
	fs.Uint64Var(&f.seed, "seed", 1, "random `seed` of the bots")
	fs.StringVar(&f.hotSpot, "hotspot", "", "make the bots converge: `col,row,metres[,share]`, waypoints within metres of cell col,row with probability share (default 1)")
	fs.IntVar(&f.predict, "predict", 5, "FBP's look-ahead in `ticks`")
	fs.Float64Var(&f.aoi, "aoi-radius", 0, "AOI radius in `metres` (0: the distance holding 95% of the visible pairs)")
	fs.IntVar(&f.exactEvery, "exact-every", 1000, "check one in `K` of FB's silent pair-ticks against the exact line of sight (0: none)")
	fs.BoolVar(&f.extend, "extend", true, "FB and FBP extend one side of a frontier silently when its player steps out into a cell hidden from the other side (false: Steed & Angus's rule, regrow on every exit)")
	fs.Float64Var(&f.budgetMS, "budget-ms", 0, "bound each tick's frontier work to `ms` (thesis §5.2: amortised over ticks; pairs waiting exchange updates meanwhile); 0: none")
	fs.BoolVar(&f.csv, "csv", false, "print summary.csv rows (with a header) instead of a table")
	f.json = cli.JSONFlag(fs, "the run and every scheme's row")
	fs.Float64Var(&f.delayMS, "delay-ms", 0, "one-way network `delay` in ms (whole ticks) under which late updates are counted (0 to 1000)")
	fs.IntVar(&f.ring, "joint-ring", -1, "GQ reports exits when this many `cells` around a player leave its side (-1: sized from --delay-ms and the speed; 0: none)")
	fs.IntVar(&f.regionLvl, "region-level", sim.DefaultRegionLevel, "RP's region quads: `level` l, squares of 2^l cells")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress lines")
	f.dem.Register(fs)
	fs.StringVar(&f.demPath, "dem", "", "the `DEM` the store was baked from, for a store of PVS cells coarser than its heightmap (default: the path the store names, with the loading flags it recorded)")
	fs.StringVar(&f.schemes, "schemes", "", "the `schemes` to count, a list such as CS,GQ (\"\": all of "+schemeNames()+"); leaving out FB and FBP makes runs with many bots affordable")
}

// simChecked is what check derives from sim's flags before a store is
// opened.
type simChecked struct {
	hotSpot bots.HotSpot
	schemes []sim.Scheme // nil: all
	ticks   int
	grow    grow.Options
}

// check validates f's values on their own (usage errors naming the flag).
func (f *simFlags) check() (simChecked, error) {
	switch {
	case f.bots < 2 || f.bots > 1024:
		return simChecked{}, cli.Usagef("--bots %d: want 2 to 1024", f.bots)
	case !(f.hz >= 1 && f.hz <= 120):
		return simChecked{}, cli.Usagef("--hz %g: want 1 to 120 ticks per second (servers run at 10–60)", f.hz)
	case !(f.minutes > 0) || f.minutes*60*f.hz > 1e6:
		return simChecked{}, cli.Usagef("--minutes %g at --hz %g: want > 0 and at most 10⁶ ticks", f.minutes, f.hz)
	case !(f.speed >= 0) || f.speed > 1000 || !(f.slope >= 0) || !(f.respawn >= 0) || f.respawn > 600:
		return simChecked{}, cli.Usagef("--speed %.4g, --max-slope %.4g, --respawn %.4g: want 0 to 1000 m/s, ≥ 0, 0 to 600 per minute", f.speed, f.slope, f.respawn)
	case f.regionLvl < 1 || f.regionLvl > 15:
		return simChecked{}, cli.Usagef("--region-level %d: want 1 to 15", f.regionLvl)
	case !(f.delayMS >= 0 && f.delayMS <= 1000) || f.ring < -1 || f.ring > 1<<20:
		return simChecked{}, cli.Usagef("--delay-ms %.4g, --joint-ring %d: want 0 to 1000 ms and -1 (auto) to 1048576 cells", f.delayMS, f.ring)
	case f.predict < 1 || f.predict > 1000 || !(f.aoi >= 0 && f.aoi <= 4e7) || f.exactEvery < 0 || !(f.budgetMS >= 0) || f.budgetMS > 1e6:
		return simChecked{}, cli.Usagef("--predict %d, --aoi-radius %.4g, --exact-every %d, --budget-ms %.4g: want 1 to 1000, 0 to 40000000 m, ≥ 0, 0 to 10⁶", f.predict, f.aoi, f.exactEvery, f.budgetMS)
	}
	var sc simChecked
	var err error
	if sc.hotSpot, err = parseHotSpot(f.hotSpot); err != nil {
		return simChecked{}, err
	}
	if f.schemes != "" {
		for _, name := range strings.Split(f.schemes, ",") {
			s := sim.Scheme(strings.ToUpper(strings.TrimSpace(name)))
			if !slices.Contains(sim.Schemes, s) {
				return simChecked{}, cli.Usagef("--schemes: no scheme %q; want a list of %s", name, schemeNames())
			}
			sc.schemes = append(sc.schemes, s)
		}
	}
	sc.ticks = int(math.Round(f.minutes * 60 * f.hz))
	// Who-sees-whom is kept per tick for the audit: ticks·bots² bits.
	if need := float64(sc.ticks) * float64(f.bots) * float64(f.bots) / 8; need > 4<<30 {
		return simChecked{}, cli.Usagef("%d bots for %d ticks keep %.1f GiB of visibility: fewer bots or minutes", f.bots, sc.ticks, need/(1<<30))
	}
	if sc.grow, err = f.grow.options(); err != nil {
		return simChecked{}, err
	}
	return sc, nil
}

// run opens the store at path, checks f against it and its memory, runs
// the simulation and writes its report.
func (f *simFlags) run(path string, sc simChecked, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	s, gr, err := bake.OpenGrower(path)
	if err != nil {
		return err
	}
	hs := sc.hotSpot
	if k := s.Hierarchy.G.K; f.regionLvl > k {
		return cli.Usagef("--region-level %d: the quads of %s have levels 0 to %d", f.regionLvl, path, k)
	}
	if hs.Share > 0 && (hs.Col >= s.Width || hs.Row >= s.Height) {
		return cli.Usagef("--hotspot cell (%d,%d) is outside the %d×%d grid of %s", hs.Col, hs.Row, s.Width, s.Height, path)
	}
	need := simBytes(s, f.bots, sc.ticks, f.regionLvl, sc.schemes)
	if avail := cli.AvailableMemory(); avail > 0 && need > avail/10*9 {
		return fmt.Errorf("%d bots for %d ticks on %s need about %s of memory and %s is available: fewer bots or minutes, or --schemes without FB and FBP",
			f.bots, sc.ticks, path, compress.FormatBytes(need), compress.FormatBytes(avail))
	}
	if !f.quiet && f.bots >= 256 {
		fmt.Fprintf(stderr, "frontierq sim: %d bots for %d ticks: about %s of memory with the store\n", f.bots, sc.ticks, compress.FormatBytes(need))
	}
	bo := bots.Defaults(s.DxM, s.DyM)
	bo.Bots, bo.Ticks, bo.TickSeconds, bo.RespawnPerMin, bo.Seed, bo.HotSpot = f.bots, sc.ticks, 1/f.hz, f.respawn, f.seed, hs
	if f.speed > 0 {
		bo.SpeedMS = f.speed
	}
	if f.slope > 0 {
		bo.MaxSlope = f.slope
	}
	var g *heightmap.Grid
	if s.Params.PVSCell > 1 { // the oracle and the exact audit read the heightmap
		if g, err = storeDEM(s, path, "sim", f.demPath, &f.dem, fs, stderr); err != nil {
			return err
		}
	}
	cfg := sim.Config{DEM: g, Bots: bo, Grow: sc.grow, Extend: f.extend, Budget: time.Duration(f.budgetMS * 1e6), Predict: f.predict, AOIRadiusM: f.aoi,
		ExactEvery: f.exactEvery, SnapshotTick: -1, Schemes: sc.schemes, DelayMS: f.delayMS, JointRing: f.ring, RegionLevel: f.regionLvl}
	if !f.quiet {
		start := time.Now()
		next := start.Add(10 * time.Second)
		cfg.Progress = func(pass string, tick, ticks int) {
			if now := time.Now(); now.After(next) {
				next = now.Add(10 * time.Second)
				fmt.Fprintf(stderr, "frontierq sim: %s: tick %d of %d after %s\n", pass, tick, ticks, now.Sub(start).Round(time.Second))
			}
		}
	}
	r, err := sim.Run(s, gr, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	terrain := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	switch {
	case *f.json:
		return cli.WriteJSON(stdout, simJSON{Terrain: terrain, Bots: r.Bots, Ticks: r.Ticks, Hz: f.hz, SpeedMS: bo.SpeedMS, Standable: r.Standable,
			Respawns: r.Respawns, Method: sc.grow.Method.String(), Merge: sc.grow.Merge.String(), AOIRadiusM: r.AOIRadiusM, Rows: r.Rows,
			ExactChecked: r.ExactChecked, ExactMissed: r.ExactMissed, GQ: r.GQ, RP: r.RP, VON: r.VON, VG: r.VG, JointRing: r.JointRing, RegionLevel: r.RegionLevel, HotSpot: hotSpotJSON(hs)})
	case f.csv:
		w := csv.NewWriter(stdout)
		_ = w.Write(sim.Header)
		for _, row := range r.Rows {
			_ = w.Write(row.Record(terrain, r.Bots))
		}
		w.Flush()
		return w.Error()
	}
	fmt.Fprintf(stdout, "%s: %d bots, %d ticks at %g Hz, %.1f m/s, %d standable cells, %d respawns; %s/%s, FBP looks %d ticks ahead; AOI radius %.1f m\n",
		terrain, r.Bots, r.Ticks, f.hz, bo.SpeedMS, r.Standable, r.Respawns, sc.grow.Method, sc.grow.Merge, f.predict, r.AOIRadiusM)
	if hs.Share > 0 {
		fmt.Fprintf(stdout, "hot spot: waypoints within %g m of cell (%d,%d) with probability %g\n", hs.RadiusM, hs.Col, hs.Row, hs.Share)
	}
	writeSimTables(stdout, r, f.delayMS > 0)
	return nil
}

// writeSimTables writes a simulation's table of schemes, its bytes, the
// late updates (when a delay was simulated) and each scheme's own counts.
func writeSimTables(stdout io.Writer, r *sim.Result, late bool) {
	fmt.Fprintf(stdout, "%-6s %12s %10s %10s %8s %9s %9s %9s %10s %8s\n", "scheme", "packets", "per tick", "per client", "queries", "work p50", "work p99", "work max", "lifetime", "missed")
	for _, row := range r.Rows {
		fmt.Fprintf(stdout, "%-6s %12d %10.1f %10.2f %8d %7.3fms %7.3fms %7.3fms %9.1fs %8d\n", row.Scheme, row.Packets, row.PacketsPerTick,
			row.PacketsPerClientTick, row.Queries, row.QueryP50MS, row.QueryP99MS, row.QueryMaxMS, row.LifetimeMeanS, row.Missed)
	}
	w := interest.DefaultWire()
	fmt.Fprintf(stdout, "bytes (%d B headers, %d B updates, %d B cells): kbit/s per client and second\n", w.HeaderB, w.UpdateB, w.CellB)
	fmt.Fprintf(stdout, "%-6s %12s %22s %22s %14s\n", "scheme", "MB", "up mean/p95/max", "down mean/p95/max", "server Mbit/s")
	for _, row := range r.Rows {
		fmt.Fprintf(stdout, "%-6s %12.2f %7.1f/%6.1f/%7.1f %7.1f/%6.1f/%7.1f %6.2f (%.2f)\n", row.Scheme, float64(row.Bytes)/1e6,
			row.KbpsUpMean, row.KbpsUpP95, row.KbpsUpMax, row.KbpsDownMean, row.KbpsDownP95, row.KbpsDownMax, row.ServerMbps, row.ServerPeakMbps)
	}
	if late {
		fmt.Fprintf(stdout, "late pair-ticks at %g ms one-way (the receiver sees the sender, the decisions in force did not send; silent: held by a silent pair):", r.Rows[0].DelayMS)
		for _, row := range r.Rows {
			fmt.Fprintf(stdout, " %s %d (%d silent)", row.Scheme, row.Late, row.LateSilent)
		}
		fmt.Fprintf(stdout, "; GQ ring %d cells\n", r.JointRing)
	}
	ran := func(sc sim.Scheme) bool {
		return slices.ContainsFunc(r.Rows, func(row sim.Row) bool { return row.Scheme == sc })
	}
	if ran(sim.FB) {
		fmt.Fprintf(stdout, "FB: whole tick p99 %.3f ms, max %.3f ms; frontiers left %d, extended %d times; FBP: renegotiated early %d, after leaving %d; exact line of sight on %d silent pair-ticks: %d visible\n",
			r.TickP99MS, r.TickMaxMS, r.FBLeft, r.Extensions, r.Early, r.Surprised, r.ExactChecked, r.ExactMissed)
	}
	per := func(v int64) float64 { return float64(v) / float64(r.Ticks) }
	if ran(sim.VON) {
		v := r.VON
		fmt.Fprintf(stdout, "VON (AOI radius %.1f m): %.1f links per node (p95 %.0f, max %d; %.1f%% enclosing neighbours beyond the radius), %.1f notifications per tick, recall %.4f of %d seen pair-ticks; %d degenerate ticks\n",
			r.AOIRadiusM, v.LinksMean, v.LinksP95, v.LinksMax, 100*v.Enclosing, per(v.Notifications), v.Recall, v.Seen, v.Degenerate)
	}
	if ran(sim.VG) {
		v := r.VG
		fmt.Fprintf(stdout, "VG per tick: %.1f exits flooded (%.1f packets, depth mean %.1f, max %d hops), %.1f updates, %.1f announcements, %.1f stale updates and tells, %.1f keep-alives, %.1f notifications; %.1f enclosing neighbours per node; %d degenerate redraws\n",
			per(v.Exits), per(v.Flooded), v.DepthMean, v.DepthMax, per(v.Updates), per(v.Announcements), per(v.Flips), per(v.KeepAlives), per(v.Notifications), v.LinksMean, v.Degenerate)
	}
	for _, c := range []struct {
		sc     sim.Scheme
		counts sim.GQCounts
		what   string
	}{{sim.GQ, r.GQ, ""}, {sim.RP, r.RP, fmt.Sprintf(" (regions of level %d)", r.RegionLevel)}} {
		if !ran(c.sc) {
			continue
		}
		g := c.counts
		fmt.Fprintf(stdout, "%s per tick%s: %.1f exits (uplinks), %.1f downlinks (%.1f messages), %.1f updates, %.1f announcements, %.1f stale updates and tells; %.1f open pairs of %d; %.0f quad-PVS lookups and %.1f tree walks per exit\n",
			c.sc, c.what, per(g.Uplinks), per(g.Downlinks), per(g.Messages), per(g.Updates), per(g.Announcements), per(g.Flips), per(g.Open), r.Bots*(r.Bots-1)/2,
			float64(g.Lookups)/float64(max(1, g.Uplinks)), float64(g.Walks)/float64(max(1, g.Uplinks)))
	}
}

// simBytes estimates a simulation's peak memory in bytes on store s: the
// loaded store (its hierarchy, 5 bytes a cell of elevations and nodata),
// the oracle's visibility tables (horizon.TableBytes) and one viewshed
// bitmap per bot, the audit's visibility history (a bit per tick and
// ordered pair) and two matrices of the current tick, the bots' paths (24
// bytes per bot-tick), the joint frontier's pair state (1.1 bytes per
// ordered pair; HY and VG run one each besides GQ's), RP's and the far tiers' tables of
// region pairs (2 bits per pair of region quads, at most 64 MiB each), VON's
// two link matrices (a bit per ordered pair each), VG's two pair tables
// (a byte per ordered pair each), and, when FB or FBP run, their frontier sets (about 2 KiB
// per pair); half as much again for the collector's headroom (measured:
// 1,024 bots for 12 ticks on the urban 500² store of 0.5 GiB peaked at
// 861 MB resident, estimated 798 MB; 256 bots on the open 316² store
// 256 MB, estimated 311 MB), plus 64 MiB for the runtime.
func simBytes(s *compress.Store, bots, ticks, regionLevel int, schemes []sim.Scheme) int64 {
	n, t, cells := int64(bots), int64(ticks), int64(s.Width)*int64(s.Height)
	p := s.Params.Horizon()
	need := int64(s.Hierarchy.Bytes()) + 5*cells + horizon.TableBytes(s.Width, s.Height, s.DxM, s.DyM, p) +
		n*(cells/8+8) + t*n*n/8 + 2*n*n + 24*t*n + 11*n*n/10
	if len(schemes) == 0 || slices.Contains(schemes, sim.FB) || slices.Contains(schemes, sim.FBP) {
		need += n * (n - 1) / 2 * 2 << 10
	}
	g := s.Hierarchy.G
	table := func(level int) int64 { return interest.RegionTableBytes(g, min(level, g.K)) }
	if len(schemes) == 0 || slices.Contains(schemes, sim.RP) {
		need += table(regionLevel)
	}
	if len(schemes) == 0 || slices.Contains(schemes, sim.GQ) {
		need += table(interest.DefaultFarLevel)
	}
	if len(schemes) == 0 || slices.Contains(schemes, sim.HY) {
		need += table(interest.DefaultFarLevel) + 11*n*n/10 // its own joint frontier
	}
	if len(schemes) == 0 || slices.Contains(schemes, sim.VON) {
		need += n * n / 4 // two link matrices
	}
	if len(schemes) == 0 || slices.Contains(schemes, sim.VG) {
		need += table(interest.DefaultFarLevel) + 11*n*n/10 + 2*n*n // its joint frontier and pair tables
	}
	return need*3/2 + 64<<20
}

// simJSON is sim --json's report.
type simJSON struct {
	Terrain      string        `json:"terrain"`
	Bots         int           `json:"bots"`
	Ticks        int           `json:"ticks"`
	Hz           float64       `json:"hz"`
	SpeedMS      float64       `json:"speed_m_per_s"`
	Standable    int           `json:"standable_cells"`
	Respawns     int           `json:"respawns"`
	Method       string        `json:"method"`
	Merge        string        `json:"merge"`
	AOIRadiusM   float64       `json:"aoi_radius_m"`
	Rows         []sim.Row     `json:"schemes"`
	ExactChecked int64         `json:"exact_checked"` // FB's silent pair-ticks checked against exact line of sight
	ExactMissed  int64         `json:"exact_missed"`
	GQ           sim.GQCounts  `json:"gq"`
	RP           sim.GQCounts  `json:"rp"`
	VON          sim.VONCounts `json:"von"`
	VG           sim.VGCounts  `json:"vg"`
	JointRing    int           `json:"joint_ring_cells"`
	RegionLevel  int           `json:"rp_region_level"`
	HotSpot      *bots.HotSpot `json:"hot_spot,omitempty"`
}

// hotSpotJSON returns hs, or nil when there is none.
func hotSpotJSON(hs bots.HotSpot) *bots.HotSpot {
	if hs.Share == 0 {
		return nil
	}
	return &hs
}

// parseHotSpot parses --hotspot "col,row,metres[,share]" ("": none).
func parseHotSpot(s string) (bots.HotSpot, error) {
	if s == "" {
		return bots.HotSpot{}, nil
	}
	bad := cli.Usagef("--hotspot %q: want col,row,metres[,share]: a cell, a radius > 0 in metres and a share in (0, 1]", s)
	f := strings.Split(s, ",")
	if len(f) != 3 && len(f) != 4 {
		return bots.HotSpot{}, bad
	}
	col, err1 := strconv.Atoi(strings.TrimSpace(f[0]))
	row, err2 := strconv.Atoi(strings.TrimSpace(f[1]))
	radius, err3 := strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
	share, err4 := 1.0, error(nil)
	if len(f) == 4 {
		share, err4 = strconv.ParseFloat(strings.TrimSpace(f[3]), 64)
	}
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || col < 0 || row < 0 ||
		!(radius > 0 && radius <= 1e7) || !(share > 0 && share <= 1) {
		return bots.HotSpot{}, bad
	}
	return bots.HotSpot{Col: col, Row: row, RadiusM: radius, Share: share}, nil
}

// schemeNames lists sim.Schemes for help and errors: "NPP, PPP, …".
func schemeNames() string {
	names := make([]string, len(sim.Schemes))
	for k, sc := range sim.Schemes {
		names[k] = string(sc)
	}
	return strings.Join(names, ", ")
}
