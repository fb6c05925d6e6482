// Package savings measures what stores of one map save a networked game,
// so that a user can choose a budget, a PVS cell or a model by traffic
// rather than by the share of hidden cells a store keeps: the engine of
// `frontierq savings` and `pvsbake bake --savings`.
//
// Every store is measured on the same players. Player pairs are drawn at
// real positions, no farther apart than the view distance, and kept when
// the exact line of sight between them (losref.Positions on the heightmap)
// is blocked both ways; a store's share is the pairs for which it grows a
// frontier set (thesis §3.5). From such a pair both players walk straight
// on at a walking speed, reflected at the map's edge and turned back at nodata, and
// the pair stays silent until one leaves its side. Then a crowd of players
// walks the map as bots (internal/sim) and the joint frontier's packets
// (sim.GQ) are counted against all-to-all (sim.NPP) and a distance radius
// (sim.AOI), the simulation's three schemes (Steed & Angus, Table 2).
package savings

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/losref"
	"github.com/frontiersets/frontiersets/internal/sim"
)

// Errors.
var (
	// ErrMaps reports stores baked from different maps.
	ErrMaps = errors.New("savings: stores of different maps")
	// ErrFewPairs reports a map where too few drawn pairs are hidden
	// from each other.
	ErrFewPairs = errors.New("savings: too few hidden player pairs")
	// ErrConfig reports a Config out of range.
	ErrConfig = errors.New("savings: invalid config")
)

// Input is one store to measure.
type Input struct {
	Path      string // as the user named it, for the table
	FileBytes int64
	Store     *compress.Store
	Grower    *grow.Grower
	// DEM is the store's grid loaded from its DEM as PVS cells
	// (heightmap.Coarsen, Heightmap set) for a store of PVS cells coarser
	// than its heightmap; nil otherwise (the store keeps the heightmap's
	// elevations).
	DEM *heightmap.Grid
}

// Open opens the store at path for Measure, with its file size; dem is
// the grid of PVS cells it was baked from (heightmap.Coarsen) for a store
// of PVS cells coarser than its heightmap, else nil. Errors are those of
// bake.OpenGrower and os.Stat; Close the Input's Store when done.
func Open(path string, dem *heightmap.Grid) (Input, error) {
	s, gr, err := bake.OpenGrower(path)
	if err != nil {
		return Input{}, err
	}
	st, err := os.Stat(path)
	if err != nil {
		s.Close()
		return Input{}, err
	}
	return Input{Path: path, FileBytes: st.Size(), Store: s, Grower: gr, DEM: dem}, nil
}

// Config of a measurement.
type Config struct {
	Pairs       int     // hidden player pairs drawn (≥ 1)
	Players     int     // players of the traffic simulation (2 to 1024)
	Seconds     float64 // simulated seconds (> 0)
	Hz          float64 // ticks per second (1 to 120)
	SpeedMS     float64 // walking speed in m/s; 0: 1.4 on heightmaps finer than 5 m, 15 on coarser ones (bots.Defaults)
	WalkSeconds float64 // a silent pair's walk is timed up to this many seconds (> 0)
	// AOIRadiusM is the distance radius in metres; 0 calibrates it on the
	// first store's run (sim.Config.AOIRadiusM) and uses that for all.
	AOIRadiusM float64
	Grow       grow.Options // the pairs' frontier sets
	Seed       uint64       // fixes the pairs, the walks and the bots
	Workers    int          // for the exact lines of sight and the simulation's oracle; 0: GOMAXPROCS
	// Progress, when set, is called as each store's stage advances
	// (stage "pairs", "walks" or a scheme; done of total).
	Progress func(store, stage string, done, total int)
}

// DefaultConfig is the measurement `frontierq savings` and `pvsbake bake
// --savings` make unless told otherwise: 1,000 pairs, walks timed up to
// 120 s, 64 players for 60 s at 20 Hz, frontier sets grown
// hierarchically with lossless merges and the default step bound.
func DefaultConfig() Config {
	return Config{Pairs: 1000, Players: 64, Seconds: 60, Hz: 20, WalkSeconds: 120, Seed: 1, Grow: grow.Options{MaxSteps: grow.DefaultMaxSteps}}
}

// Row is one store's savings.
type Row struct {
	Store       string  `json:"store"`
	FileBytes   int64   `json:"file_bytes"`
	MemoryBytes int64   `json:"memory_bytes"` // the opened hierarchy (compress.Stats.MemoryBytes)
	BudgetBytes int64   `json:"budget_bytes,omitempty"`
	PVSCellM    float64 `json:"pvs_cell_m"`
	Model       string  `json:"model"`
	// Positions: the pairs are at real positions inside cells (a
	// from-region store's promise); false: at the cells' sample points,
	// all a point model promises.
	Positions bool `json:"positions"`
	// HiddenPairs drawn pairs are hidden both ways by exact line of
	// sight; the store grows a frontier set for Found of them.
	HiddenPairs int     `json:"hidden_pairs"`
	Found       int     `json:"found"`
	FoundShare  float64 `json:"found_share"`
	// Silent*: how long a found pair stays silent while both players
	// walk, the mean and the 10th percentile over the found pairs, in
	// seconds, metres walked by each player and ticks; walks are capped
	// at Config.WalkSeconds (Capped of them reached it).
	SilentMeanS     float64 `json:"silent_mean_s"`
	SilentP10S      float64 `json:"silent_p10_s"`
	SilentMeanM     float64 `json:"silent_mean_m"`
	SilentP10M      float64 `json:"silent_p10_m"`
	SilentMeanTicks float64 `json:"silent_mean_ticks"`
	SilentP10Ticks  float64 `json:"silent_p10_ticks"`
	Capped          int     `json:"capped"`
	// Packets and bytes per second of the crowd's run: the joint
	// frontier (GQ), all-to-all (NPP) and the distance radius (AOI).
	GQPacketsPerS  float64 `json:"gq_packets_per_s"`
	NPPPacketsPerS float64 `json:"npp_packets_per_s"`
	AOIPacketsPerS float64 `json:"aoi_packets_per_s"`
	GQBytesPerS    float64 `json:"gq_bytes_per_s"`
	NPPBytesPerS   float64 `json:"npp_bytes_per_s"`
	AOIBytesPerS   float64 `json:"aoi_bytes_per_s"`
	// SavedVsNPP and SavedVsAOI are the shares of those schemes' packets
	// the joint frontier does not send: 1 − GQ/NPP, 1 − GQ/AOI.
	SavedVsNPP float64 `json:"saved_vs_npp"`
	SavedVsAOI float64 `json:"saved_vs_aoi"`
	// GQMissed are the (tick, ordered pair) where the receiver sees the
	// sender by the uncompressed PVS and GQ sent nothing: 0 for a sound
	// store.
	GQMissed int64   `json:"gq_missed"`
	Seconds  float64 `json:"measure_s"` // this store's measurement, wall time
}

// Report is a measurement of stores of one map.
type Report struct {
	Map         string  `json:"map"`    // the DEM's file name and window
	ViewM       float64 `json:"view_m"` // pairs are at most this far apart; 0: anywhere
	Pairs       int     `json:"pairs"`
	Drawn       int     `json:"drawn"` // pairs drawn to find them
	ObserverM   float64 `json:"observer_height_m"`
	TargetM     float64 `json:"target_height_m"`
	SpeedMS     float64 `json:"speed_m_s"`
	Hz          float64 `json:"hz"`
	WalkSeconds float64 `json:"walk_s"`
	Players     int     `json:"players"`
	Seconds     float64 `json:"seconds"`
	AOIRadiusM  float64 `json:"aoi_radius_m"`
	Seed        uint64  `json:"seed"`
	Rows        []Row   `json:"stores"`
	// Recommended is the store Recommend chose ("" when not asked), for
	// RecommendPct percent.
	Recommended  string  `json:"recommended,omitempty"`
	RecommendPct float64 `json:"recommend_pct,omitempty"`
}

// SameMap returns nil when stores a and b were baked from one map: the same
// DEM file name, window of its raster and heightmap cell size (their PVS
// cells, budgets and models may differ); else an error wrapping ErrMaps
// that names both.
func SameMap(a, b Input) error {
	ka, kb := float64(max(a.Store.Params.PVSCell, 1)), float64(max(b.Store.Params.PVSCell, 1))
	same := filepath.Base(a.Store.Source) == filepath.Base(b.Store.Source) && a.Store.Window == b.Store.Window &&
		math.Abs(a.Store.DxM/ka-b.Store.DxM/kb) <= 1e-9*a.Store.DxM && math.Abs(a.Store.DyM/ka-b.Store.DyM/kb) <= 1e-9*a.Store.DyM
	if same {
		return nil
	}
	return fmt.Errorf("%w: %s is %s and %s is %s; compare stores of one map", ErrMaps, a.Path, mapName(a), b.Path, mapName(b))
}

// mapName names the map a store was baked from: its DEM's file name, the
// window and the heightmap's cell size.
func mapName(in Input) string {
	k := float64(max(in.Store.Params.PVSCell, 1))
	w := in.Store.Window
	return fmt.Sprintf("%s window %d,%d,%d,%d at %g m", filepath.Base(in.Store.Source), w[0], w[1], w[2], w[3], in.Store.DxM/k)
}

// Check validates c: errors wrap ErrConfig.
func (c *Config) Check() error {
	switch {
	case c.Pairs < 1 || c.Pairs > 1_000_000:
		return fmt.Errorf("%w: %d pairs, want 1 to 1000000", ErrConfig, c.Pairs)
	case c.Players < 2 || c.Players > 1024:
		return fmt.Errorf("%w: %d players, want 2 to 1024", ErrConfig, c.Players)
	case !(c.Hz >= 1 && c.Hz <= 120):
		return fmt.Errorf("%w: %g Hz, want 1 to 120", ErrConfig, c.Hz)
	case !(c.Seconds > 0) || c.Seconds*c.Hz > 1e6:
		return fmt.Errorf("%w: %g s at %g Hz, want > 0 and at most 10⁶ ticks", ErrConfig, c.Seconds, c.Hz)
	case !(c.WalkSeconds > 0) || c.WalkSeconds*c.Hz > 1e6:
		return fmt.Errorf("%w: walks of %g s at %g Hz, want > 0 and at most 10⁶ ticks", ErrConfig, c.WalkSeconds, c.Hz)
	case !(c.SpeedMS >= 0 && c.SpeedMS <= 1000) || !(c.AOIRadiusM >= 0) || c.Workers < 0:
		return fmt.Errorf("%w: speed %g m/s, AOI radius %g m, %d workers", ErrConfig, c.SpeedMS, c.AOIRadiusM, c.Workers)
	}
	return nil
}

// Measure measures every store of ins, which must be of one map (SameMap),
// on the same pairs, walks and bots (Config.Seed). Errors: ErrConfig,
// ErrMaps, ErrFewPairs (fewer than Config.Pairs hidden pairs among 200
// times as many drawn), and those of the growth and the simulation.
func Measure(ins []Input, cfg Config) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("%w: no stores", ErrConfig)
	}
	for _, in := range ins[1:] {
		if err := SameMap(ins[0], in); err != nil {
			return nil, err
		}
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	m, err := newMap(ins)
	if err != nil {
		return nil, err
	}
	if cfg.SpeedMS == 0 {
		cfg.SpeedMS = bots.Defaults(m.dx, m.dy).SpeedMS
	}
	hp := ins[0].Store.Params.Horizon()
	rep := &Report{Map: mapName(ins[0]), ViewM: m.view, Pairs: cfg.Pairs, ObserverM: hp.ObserverHeight, TargetM: hp.TargetHeight,
		SpeedMS: cfg.SpeedMS, Hz: cfg.Hz, WalkSeconds: cfg.WalkSeconds, Players: cfg.Players, Seconds: cfg.Seconds, AOIRadiusM: cfg.AOIRadiusM, Seed: cfg.Seed}
	need := [2]bool{} // pairs at sample points, at positions
	for _, in := range ins {
		need[b2i(positional(in.Store))] = true
	}
	pairs, err := m.drawPairs(cfg, hp, need)
	if err != nil {
		return nil, err
	}
	rep.Drawn = pairs.drawn
	for _, in := range ins {
		start := time.Now()
		row, err := measureStore(in, m, pairs.hidden[b2i(positional(in.Store))], &cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		if rep.AOIRadiusM == 0 {
			rep.AOIRadiusM = cfg.AOIRadiusM
		}
		row.Seconds = time.Since(start).Seconds()
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// positional reports whether store s promises frontier sets between
// positions inside cells (the region model), not only between sample
// points.
func positional(s *compress.Store) bool { return s.Params.Horizon().LOS == horizon.LOSRegion }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hmap is the heightmap the stores were baked from, on which pairs are
// drawn and lines of sight judged: positions in fractional heightmap cells
// (sample (c,r) at (c,r), the hull [0, W−1] × [0, H−1], as losref).
type hmap struct {
	g      losref.Grid
	nodata []bool  // may be nil
	dx, dy float64 // metres per heightmap cell
	view   float64 // the smallest view distance of the stores, metres; 0: none
}

// newMap takes the heightmap from the first store that has it: a DEM's
// Heightmap, or the elevations of a store of the heightmap's own cells.
func newMap(ins []Input) (*hmap, error) {
	m := &hmap{}
	for _, in := range ins {
		if d := in.Store.Params.Horizon().MaxDistance; d > 0 && (m.view == 0 || d < m.view) {
			m.view = d
		}
		if m.g.Elev != nil {
			continue
		}
		switch s := in.Store; {
		case in.DEM != nil && in.DEM.Heightmap != nil:
			h := in.DEM.Heightmap
			m.g, m.nodata, m.dx, m.dy = losref.Grid{Width: h.Width, Height: h.Height, Elev: h.Elev}, h.Nodata, h.Dx, h.Dy
		case s.Params.PVSCell <= 1:
			m.g, m.nodata, m.dx, m.dy = losref.Grid{Width: s.Width, Height: s.Height, Elev: s.Elev}, s.Nodata, s.DxM, s.DyM
		}
	}
	if m.g.Elev == nil {
		return nil, fmt.Errorf("%w: stores of PVS cells need their DEM's heightmap", ErrConfig)
	}
	return m, nil
}

// standable reports whether position (x,y) lies on data: its nearest
// sample is not nodata.
func (m *hmap) standable(x, y float64) bool {
	c, r := int(math.Round(x)), int(math.Round(y))
	return m.nodata == nil || !m.nodata[r*m.g.Width+c]
}

// within says where pairs are drawn for a view distance of viewM metres
// (0: none): "within 2000 m" or "anywhere".
func within(viewM float64) string {
	if viewM > 0 {
		return fmt.Sprintf("within %g m", viewM)
	}
	return "anywhere"
}

// pair is two players' positions, heightmap cells.
type pair struct{ ax, ay, bx, by float64 }

// drawn are the pairs hidden both ways, at sample points ([0]) and at
// positions ([1]), each the first Config.Pairs in drawing order.
type drawn struct {
	hidden [2][]pair
	drawn  int
}

// drawPairs draws pairs uniformly (the first player anywhere on data, the
// second within the view distance of it, on data) until Config.Pairs of
// them are hidden both ways under each check in need, in batches judged
// on Config.Workers goroutines: the pairs depend on the seed alone.
func (m *hmap) drawPairs(cfg Config, hp horizon.Params, need [2]bool) (*drawn, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5a71))
	los := losref.Positions{Grid: m.g, HObs: hp.ObserverHeight, Tau: hp.TargetHeight, PerCell: 16, Dx: m.dx, Dy: m.dy, MaxDistance: m.view}
	w, h := float64(m.g.Width-1), float64(m.g.Height-1)
	reach := math.Inf(1)
	if m.view > 0 {
		reach = m.view
	}
	point := func() (float64, float64, bool) {
		for range 1000 {
			x, y := rng.Float64()*w, rng.Float64()*h
			if m.standable(x, y) {
				return x, y, true
			}
		}
		return 0, 0, false
	}
	next := func() (pair, bool) {
		for range 1000 {
			ax, ay, ok := point()
			if !ok {
				return pair{}, false
			}
			if math.IsInf(reach, 1) {
				bx, by, ok := point()
				return pair{ax, ay, bx, by}, ok
			}
			// Uniform in the disc of radius reach around a.
			r, t := reach*math.Sqrt(rng.Float64()), 2*math.Pi*rng.Float64()
			bx, by := ax+r*math.Cos(t)/m.dx, ay+r*math.Sin(t)/m.dy
			if bx >= 0 && by >= 0 && bx <= w && by <= h && m.standable(bx, by) {
				return pair{ax, ay, bx, by}, true
			}
		}
		return pair{}, false
	}
	hidden := func(p pair) bool {
		return los.Clearance(p.ax, p.ay, p.bx, p.by) < 0 && los.Clearance(p.bx, p.by, p.ax, p.ay) < 0
	}
	d := &drawn{}
	const batch = 256
	cand := make([]pair, 0, batch)
	res := make([][2]bool, batch) // hidden at sample points, at positions
	full := func() bool {
		return (!need[0] || len(d.hidden[0]) >= cfg.Pairs) && (!need[1] || len(d.hidden[1]) >= cfg.Pairs)
	}
	for !full() {
		if d.drawn >= 200*cfg.Pairs {
			return nil, fmt.Errorf("%w: %d of %d pairs drawn %s are hidden from each other, want %d: fewer --pairs, or a map with more relief",
				ErrFewPairs, max(len(d.hidden[0]), len(d.hidden[1])), d.drawn, within(m.view), cfg.Pairs)
		}
		cand = cand[:0]
		for range batch {
			p, ok := next()
			if !ok {
				return nil, fmt.Errorf("%w: the map has too little data to draw pairs on", ErrFewPairs)
			}
			cand = append(cand, p)
		}
		var wg sync.WaitGroup
		for k := range cfg.Workers {
			wg.Go(func() {
				for i := k; i < len(cand); i += cfg.Workers {
					p := cand[i]
					if need[1] {
						res[i][1] = hidden(p)
					}
					if need[0] {
						s := pair{math.Round(p.ax), math.Round(p.ay), math.Round(p.bx), math.Round(p.by)}
						res[i][0] = hidden(s)
					}
				}
			})
		}
		wg.Wait()
		for i, p := range cand {
			if full() {
				break
			}
			d.drawn++
			for k := range 2 {
				if need[k] && res[i][k] && len(d.hidden[k]) < cfg.Pairs {
					d.hidden[k] = append(d.hidden[k], p)
				}
			}
		}
		if cfg.Progress != nil {
			cfg.Progress("", "pairs", max(len(d.hidden[0]), len(d.hidden[1])), cfg.Pairs)
		}
	}
	return d, nil
}

// measureStore measures one store on the hidden pairs and the crowd; it
// sets cfg.AOIRadiusM from the first run when it was 0.
func measureStore(in Input, m *hmap, pairs []pair, cfg *Config) (Row, error) {
	s := in.Store
	k := max(s.Params.PVSCell, 1)
	row := Row{Store: in.Path, FileBytes: in.FileBytes, MemoryBytes: s.MemoryBytes, BudgetBytes: s.BudgetBytes,
		PVSCellM: float64(k) * m.dx, Model: s.Params.Horizon().LOS.String(), Positions: positional(s), HiddenPairs: len(pairs)}
	// cell returns the store cell holding heightmap position (x,y): PVS
	// cell C covers heightmap cells kC … kC+k−1, positions kC−½ to
	// kC+k−½.
	cell := func(x, y float64) [2]int {
		return [2]int{min(max(int(math.Floor((x+0.5)/float64(k))), 0), s.Width-1), min(max(int(math.Floor((y+0.5)/float64(k))), 0), s.Height-1)}
	}
	var sc grow.Scratch
	var res grow.Result
	maxTicks := int(math.Round(cfg.WalkSeconds * cfg.Hz))
	var silent []float64 // ticks
	for i, p := range pairs {
		a, b := cell(p.ax, p.ay), cell(p.bx, p.by)
		if a == b {
			continue
		}
		if err := in.Grower.Grow(a, b, cfg.Grow, &sc, &res); err != nil {
			return row, err
		}
		if res.MutuallyVisible {
			continue
		}
		row.Found++
		t := m.walk(p, i, cfg, maxTicks, func(ax, ay, bx, by float64) bool {
			ca, cb := cell(ax, ay), cell(bx, by)
			return res.A.Contains(ca[0], ca[1]) && res.B.Contains(cb[0], cb[1])
		})
		if t == maxTicks {
			row.Capped++
		}
		silent = append(silent, float64(t))
		if cfg.Progress != nil && (i+1)%100 == 0 {
			cfg.Progress(in.Path, "walks", i+1, len(pairs))
		}
	}
	if len(pairs) > 0 {
		row.FoundShare = float64(row.Found) / float64(len(pairs))
	}
	if len(silent) > 0 {
		slices.Sort(silent)
		var sum float64
		for _, t := range silent {
			sum += t
		}
		mean, p10 := sum/float64(len(silent)), silent[int(math.Ceil(0.1*float64(len(silent))))-1]
		row.SilentMeanTicks, row.SilentP10Ticks = mean, p10
		row.SilentMeanS, row.SilentP10S = mean/cfg.Hz, p10/cfg.Hz
		row.SilentMeanM, row.SilentP10M = row.SilentMeanS*cfg.SpeedMS, row.SilentP10S*cfg.SpeedMS
	}
	return row, crowd(in, m, &row, cfg)
}

// walk moves both players of pair p (the i-th) straight on at cfg.SpeedMS,
// each in a random direction drawn from the seed and i, reflected at the
// hull's edges and turned back at nodata, and returns the ticks (at most
// maxTicks) for which inside holds after each step.
func (m *hmap) walk(p pair, i int, cfg *Config, maxTicks int, inside func(ax, ay, bx, by float64) bool) int {
	rng := rand.New(rand.NewPCG(cfg.Seed^0x9e3779b97f4a7c15, uint64(i)))
	step := cfg.SpeedMS / cfg.Hz // metres per tick
	ta, tb := 2*math.Pi*rng.Float64(), 2*math.Pi*rng.Float64()
	a := walker{x: p.ax, y: p.ay, vx: step * math.Cos(ta) / m.dx, vy: step * math.Sin(ta) / m.dy}
	b := walker{x: p.bx, y: p.by, vx: step * math.Cos(tb) / m.dx, vy: step * math.Sin(tb) / m.dy}
	w, h := float64(m.g.Width-1), float64(m.g.Height-1)
	for t := range maxTicks {
		a.step(m, w, h)
		b.step(m, w, h)
		if !inside(a.x, a.y, b.x, b.y) {
			return t
		}
	}
	return maxTicks
}

// walker is a walking player: position and velocity, heightmap cells (per
// tick).
type walker struct{ x, y, vx, vy float64 }

// step moves w one tick, reflecting it at the hull [0, wd] × [0, ht] and
// turning it back where it would step onto nodata.
func (w *walker) step(m *hmap, wd, ht float64) {
	x, y := w.x+w.vx, w.y+w.vy
	if x < 0 || x > wd {
		w.vx = -w.vx
		x = w.x + w.vx
	}
	if y < 0 || y > ht {
		w.vy = -w.vy
		y = w.y + w.vy
	}
	x, y = min(max(x, 0), wd), min(max(y, 0), ht)
	if !m.standable(x, y) {
		w.vx, w.vy = -w.vx, -w.vy
		return
	}
	w.x, w.y = x, y
}

// crowd runs Config.Players bots for Config.Seconds over the store and
// fills row's packets and bytes from the simulation's GQ, NPP and AOI rows.
func crowd(in Input, m *hmap, row *Row, cfg *Config) error {
	s := in.Store
	bo := bots.Defaults(m.dx, m.dy) // the heightmap's cells say whether players walk or drive
	bo.Bots, bo.Ticks, bo.TickSeconds, bo.Seed, bo.SpeedMS = cfg.Players, int(math.Round(cfg.Seconds*cfg.Hz)), 1/cfg.Hz, cfg.Seed, cfg.SpeedMS
	// Bots step cell by cell on the store's grid; their slope limit is
	// rise over run between the store cells' centres.
	sc := sim.Config{DEM: in.DEM, Bots: bo, Grow: cfg.Grow, Predict: 1, AOIRadiusM: cfg.AOIRadiusM, Workers: cfg.Workers, SnapshotTick: -1,
		Schemes: []sim.Scheme{sim.NPP, sim.AOI, sim.GQ}}
	if cfg.Progress != nil {
		sc.Progress = func(pass string, tick, ticks int) { cfg.Progress(in.Path, pass, tick, ticks) }
	}
	r, err := sim.Run(s, in.Grower, sc)
	if err != nil {
		return err
	}
	if cfg.AOIRadiusM == 0 {
		cfg.AOIRadiusM = r.AOIRadiusM
	}
	rows := map[sim.Scheme]sim.Row{}
	for _, x := range r.Rows {
		rows[x.Scheme] = x
	}
	secs := float64(r.Ticks) / cfg.Hz
	gq, npp, aoi := rows[sim.GQ], rows[sim.NPP], rows[sim.AOI]
	row.GQPacketsPerS, row.NPPPacketsPerS, row.AOIPacketsPerS = float64(gq.Packets)/secs, float64(npp.Packets)/secs, float64(aoi.Packets)/secs
	row.GQBytesPerS, row.NPPBytesPerS, row.AOIBytesPerS = float64(gq.Bytes)/secs, float64(npp.Bytes)/secs, float64(aoi.Bytes)/secs
	row.SavedVsNPP = 1 - float64(gq.Packets)/float64(max(npp.Packets, 1))
	row.SavedVsAOI = 1 - float64(gq.Packets)/float64(max(aoi.Packets, 1))
	row.GQMissed = gq.Missed
	return nil
}

// Recommend sets r.Recommended to the smallest store (by file size) whose
// packets saved against all-to-all are within pct percent of the largest
// store's, and returns it.
func (r *Report) Recommend(pct float64) string {
	if len(r.Rows) == 0 {
		return ""
	}
	rows := slices.Clone(r.Rows)
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(a.FileBytes, b.FileBytes) })
	ref := rows[len(rows)-1].SavedVsNPP
	for _, x := range rows {
		if x.SavedVsNPP >= ref*(1-pct/100) {
			r.Recommended, r.RecommendPct = x.Store, pct
			return x.Store
		}
	}
	return ""
}
