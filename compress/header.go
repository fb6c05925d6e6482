package compress

import (
	"fmt"
	"math"
	"strings"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Magic opens every store; Version is the newest format version this
// package reads (FORMAT.md). Stores are written as VersionAligned (5:
// read in place, Open), but for stores with shared subtrees, written as
// VersionShared (3); version 4 coded stores and versions 1 to 3 are still
// read (Decode).
const (
	Magic          = "PVSSTORE"
	Version        = 5
	VersionAligned = 5
	VersionShared  = 3
	VersionCoded4  = 4
	// Encoding names the tree encoding of the CODE section.
	Encoding = "quadpvs-bfs-2bit"
	// EncodingCoded names that of a coded store's CBLK section: each
	// quad's tree coded given its parent's (quadtree.CondCoder).
	EncodingCoded = "quadpvs-cond-rans"
)

// Header describes a store: the grid, where it came from, the visibility
// parameters and the budget. It is the HEAD section, as JSON.
type Header struct {
	Width           int        `json:"width"`  // cells
	Height          int        `json:"height"` // cells
	DxM             float64    `json:"dx_m"`   // metres between columns
	DyM             float64    `json:"dy_m"`   // metres between rows
	GeoTransform    [6]float64 `json:"geotransform"`
	HasGeoTransform bool       `json:"has_geotransform"`
	CRS             string     `json:"crs_wkt"`
	CRSName         string     `json:"crs"`
	Source          string     `json:"source"` // DEM path as given to the baker
	Window          [4]int     `json:"window"` // col,row,width,height in the source raster
	ZScale          float64    `json:"z_scale"`
	Params          VisParams  `json:"params"`
	BudgetBytes     int64      `json:"budget_bytes"` // 0 when the cap was given in nodes
	Cap             Cap        `json:"cap"`
	Encoding        string     `json:"encoding"`
	// Shared is the number of shared subtrees (quadpvs.Hierarchy.Share),
	// stored as trees after the quads'; RefBits the low bits of a
	// reference that name its subtree. Both 0 in a store without sharing.
	Shared  int `json:"shared_subtrees,omitempty"`
	RefBits int `json:"ref_bits,omitempty"`
	// Allocation, when set, records a global allocation (Allocate): the
	// trees' sizes vary, each at most Allocation.CeilingCodes = Cap.Codes.
	// Absent: every tree capped alike at Cap.
	Allocation *Allocation `json:"allocation,omitempty"`
	// Load records the flags the DEM was loaded with that its file does not
	// hold (a game heightmap's cell size and height range, a RAW file's
	// size), so that commands loading it again need none; absent when none
	// was given.
	Load *LoadFlags `json:"load,omitempty"`
	// CacheBytes is a coded store's cache of decoded trees, in bytes
	// (quadtree.Coded.CacheBytes); 0 in a flat store. A version 4 coded
	// store gives CacheTrees, a count of trees, instead.
	CacheBytes int64 `json:"cache_bytes,omitempty"`
	CacheTrees int   `json:"cache_trees,omitempty"`
	// LonLat places WGS 84 longitude and latitude on the grid's cells
	// (heightmap.LonLatGrid, built through GDAL at bake time), so that
	// readers convert lon/lat without GDAL; absent when the grid has no
	// CRS or the store predates it.
	LonLat *heightmap.LonLatGrid `json:"lonlat,omitempty"`
	// Engine places the grid's cells in a game engine's world
	// (heightmap.EngineFrame: pvsbake bake --engine); absent: none.
	Engine *heightmap.EngineFrame `json:"engine,omitempty"`
}

// LoadFlags are a DEM's loading options (heightmap.Options) as a store
// records them: metres per cell, metres per height unit and metres added,
// or the metres of 16-bit samples 0 and 65535; a RAW file's size and byte
// order; the band.
type LoadFlags struct {
	CellSizeM    float64    `json:"cell_size_m,omitempty"`
	ZScale       float64    `json:"z_scale,omitempty"`
	ZOffsetM     float64    `json:"z_offset_m,omitempty"`
	HeightRangeM [2]float64 `json:"height_range_m,omitempty"`
	RawSize      [2]int     `json:"raw_size,omitempty"`
	RawBigEndian bool       `json:"raw_big_endian,omitempty"`
	Band         int        `json:"band,omitempty"`
}

// VisParams are the per-point visibility parameters (horizon.Params) in the
// store's units.
type VisParams struct {
	Sectors         int     `json:"sectors"`
	ObserverHeightM float64 `json:"observer_height_m"`
	TargetHeightM   float64 `json:"target_height_m"`
	MaxDistanceM    float64 `json:"max_distance_m"`
	EarthCurvature  bool    `json:"earth_curvature"`
	Refraction      float64 `json:"refraction"`
	MarginM         float64 `json:"margin_m,omitempty"`
	// LOS names the visibility model (horizon.LOS: "sector",
	// "conservative" or "region") and LOSVersion its version, which changes whenever
	// the model bakes other bytes. Stores written before models were named
	// have neither: their model is Conservative's, version 0 (unknown).
	LOS        string `json:"los,omitempty"`
	LOSVersion int    `json:"los_version,omitempty"`
	// Conservative: baked with the conservative model (hidden only when
	// the exact line of sight is blocked); absent: the sector model. Still
	// written, for readers from before LOS.
	Conservative bool `json:"conservative,omitempty"`
	// PVSCell: the store's cells are PVS cells of PVSCell × PVSCell
	// heightmap cells (horizon.Params.PVSCell; absent: the heightmap's
	// own). Width, Height, DxM, DyM and the geotransform are the PVS
	// cells'; Window is the heightmap's in its source raster.
	PVSCell int `json:"pvs_cell,omitempty"`
}

// Georef returns the grid's georeferencing: its geotransform, CRS and
// lon/lat grid.
func (h *Header) Georef() heightmap.Georef {
	g := heightmap.Georef{GeoTransform: h.GeoTransform, HasGeoTransform: h.HasGeoTransform, CRS: h.CRS, LonLat: h.LonLat, Engine: h.Engine}
	if k := h.Params.PVSCell; k > 1 && h.WindowFits() {
		g.Samples = heightmap.Samples{K: k, Width: h.Window[2], Height: h.Window[3]}
	}
	return g
}

// WindowFits reports whether the header's window of the source raster
// (the heightmap's) gives its grid: the same size, or with PVS cells of k
// heightmap cells, ⌈size/k⌉.
func (h *Header) WindowFits() bool {
	k := max(h.Params.PVSCell, 1)
	w := h.Window
	return w[2] > 0 && w[3] > 0 && (w[2]+k-1)/k == h.Width && (w[3]+k-1)/k == h.Height
}

// Model returns the visibility model the parameters name and its version
// (0 when the store predates versions). Errors wrap horizon.ErrParams and
// name the model and version when this build does not know them: a name
// it does not implement, or a version newer than its own.
func (v VisParams) Model() (horizon.LOS, int, error) {
	if v.LOS == "" {
		if v.LOSVersion != 0 {
			return 0, 0, fmt.Errorf("%w: visibility model version %d without a name", horizon.ErrParams, v.LOSVersion)
		}
		if v.Conservative {
			return horizon.LOSConservative, 0, nil
		}
		return horizon.LOSSector, 0, nil
	}
	l, err := horizon.ParseLOS(v.LOS)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: visibility model %q version %d is not one this build knows (%s); read it with the build that wrote it",
			horizon.ErrParams, v.LOS, v.LOSVersion, knownModels())
	}
	if v.LOSVersion < 0 || v.LOSVersion > l.Version() || (v.Conservative != (l == horizon.LOSConservative)) {
		return 0, 0, fmt.Errorf("%w: visibility model %q version %d is not one this build knows (%s); read it with the build that wrote it",
			horizon.ErrParams, v.LOS, v.LOSVersion, knownModels())
	}
	if v.PVSCell < 0 || v.PVSCell > horizon.MaxPVSCell || (v.PVSCell > 1 && l != horizon.LOSRegion) {
		return 0, 0, fmt.Errorf("%w: PVS cells of %d heightmap cells under the %s model; want 0 to %d, and more than 1 only under the region model",
			horizon.ErrParams, v.PVSCell, l, horizon.MaxPVSCell)
	}
	return l, v.LOSVersion, nil
}

// knownModels lists this build's models with their versions, "sector
// version 1, conservative version 1".
func knownModels() string {
	var b strings.Builder
	for l := horizon.LOSSector; l.Valid(); l++ {
		if l > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s version %d", l, l.Version())
	}
	return b.String()
}

// ModelName returns "conservative v1", or "sector (unversioned)" for a
// store from before versions, for messages and reports.
func (v VisParams) ModelName() string {
	l, ver, err := v.Model()
	switch {
	case err != nil:
		return fmt.Sprintf("%q v%d", v.LOS, v.LOSVersion)
	case ver == 0:
		return l.String() + " (unversioned)"
	}
	return fmt.Sprintf("%s v%d", l, ver)
}

// Horizon returns the parameters as horizon.Params; a model this build
// does not know (see Model) gives an invalid horizon.LOS, which
// horizon.Params.Validate refuses.
func (v VisParams) Horizon() horizon.Params {
	l, _, err := v.Model()
	if err != nil {
		l = horizon.LOS(255)
	}
	return horizon.Params{Sectors: v.Sectors, ObserverHeight: v.ObserverHeightM, TargetHeight: v.TargetHeightM,
		MaxDistance: v.MaxDistanceM, EarthCurvature: v.EarthCurvature, Refraction: v.Refraction, Margin: v.MarginM,
		LOS: l, Version: bakedVersion(l, v.LOSVersion), PVSCell: v.PVSCell}
}

// bakedVersion returns horizon.Params.Version for a store of model l,
// version v: v where this build bakes it and it is not the default, else 0
// (the default; a store from before versions, or of a version this build no
// longer bakes, is judged by it).
func bakedVersion(l horizon.LOS, v int) int {
	if v >= l.Oldest() && v <= l.Version() && v != l.Default() {
		return v
	}
	return 0
}

// FromHorizon converts horizon.Params, naming the model with this build's
// version.
func FromHorizon(p horizon.Params) VisParams {
	return VisParams{Sectors: p.Sectors, ObserverHeightM: p.ObserverHeight, TargetHeightM: p.TargetHeight,
		MaxDistanceM: p.MaxDistance, EarthCurvature: p.EarthCurvature, Refraction: p.Refraction, MarginM: p.Margin,
		LOS: p.LOS.String(), LOSVersion: p.ModelVersion(), Conservative: p.LOS == horizon.LOSConservative, PVSCell: pvsCell(p.PVSCell)}
}

// pvsCell is a PVS cell's side as stored: 0 for the heightmap's own cells.
func pvsCell(k int) int {
	if k <= 1 {
		return 0
	}
	return k
}

// Stats are measured while baking: the STAT section, as JSON.
type Stats struct {
	Quads       int     `json:"quads"`
	NodesTotal  int64   `json:"nodes_total"`
	NodesMax    int     `json:"nodes_max"`
	CodesTotal  int64   `json:"codes_total"`
	MemoryBytes int64   `json:"memory_bytes"` // the loaded hierarchy's size (quadpvs.Hierarchy.Bytes)
	HiddenKept  float64 `json:"hidden_kept"`  // hidden cells kept / hidden cells before capping, over the sample
	HiddenQuads int     `json:"hidden_kept_quads"`
	// PinnedBytes is what a coded store's upper levels' trees take decoded
	// (quadtree.Coded.PinnedBytes), counted in MemoryBytes; absent for
	// flat stores.
	PinnedBytes int64 `json:"pinned_bytes,omitempty"`
}

// Tally accumulates a store's statistics while its quads are written. The
// tallies of a sharded bake's parts add up (Add) to the single bake's, which
// Stats turns into the STAT section.
type Tally struct {
	Quads        int   `json:"quads"` // trees written
	NodesTotal   int64 `json:"nodes_total"`
	NodesMax     int   `json:"nodes_max"`
	CodesTotal   int64 `json:"codes_total"`
	MemoryBytes  int64 `json:"memory_bytes"`
	HiddenBefore int64 `json:"hidden_before"` // hidden cells of the sampled quads before capping
	HiddenAfter  int64 `json:"hidden_after"`  // and after
	HiddenQuads  int   `json:"hidden_quads"`  // quads sampled
}

// Tree counts one written tree.
func (t *Tally) Tree(tr *quadpvs.Tree) {
	t.Quads++
	t.NodesTotal += int64(tr.Nodes())
	t.NodesMax = max(t.NodesMax, tr.Nodes())
	t.CodesTotal += int64(tr.Len())
	t.MemoryBytes += int64(QuadOverhead + quadtree.BytesFor(tr.Len()))
}

// Hidden counts one sampled quad's hidden cells before and after capping.
func (t *Tally) Hidden(before, after int) {
	t.HiddenBefore += int64(before)
	t.HiddenAfter += int64(after)
	t.HiddenQuads++
}

// Add adds o's counts to t's.
func (t *Tally) Add(o Tally) {
	t.Quads += o.Quads
	t.NodesTotal += o.NodesTotal
	t.NodesMax = max(t.NodesMax, o.NodesMax)
	t.CodesTotal += o.CodesTotal
	t.MemoryBytes += o.MemoryBytes
	t.HiddenBefore += o.HiddenBefore
	t.HiddenAfter += o.HiddenAfter
	t.HiddenQuads += o.HiddenQuads
}

// Stats returns the statistics the tally makes: HiddenKept is
// HiddenAfter ÷ HiddenBefore, 1 when nothing hidden was sampled.
func (t Tally) Stats() Stats {
	st := Stats{Quads: t.Quads, NodesTotal: t.NodesTotal, NodesMax: t.NodesMax, CodesTotal: t.CodesTotal,
		MemoryBytes: t.MemoryBytes, HiddenKept: 1, HiddenQuads: t.HiddenQuads}
	if t.HiddenBefore > 0 {
		st.HiddenKept = float64(t.HiddenAfter) / float64(t.HiddenBefore)
	}
	return st
}

// check validates what a reader relies on in a store header and returns
// the grid's cell count and tree count (quads and shared subtrees); size is
// the file's (< 0: unknown).
// Bounds of a header's numbers: a cell of at most 1,000 km, map
// coordinates within ±10^12 CRS units.
const (
	maxSpacingM = 1e6
	maxCoord    = 1e12
)

// maxCacheTrees bounds a version 4 coded store's cache_trees.
const maxCacheTrees = 1 << 16

// Validate returns the error a reader would give for a store with header h
// (whatever its trees), nil when readers accept it: a writer calls it
// before the work of filling a store that nothing could open (an engine
// origin past ±10¹² world units once moved to the window, cells over
// 1,000 km). An empty Encoding is taken as the flat one.
func (h Header) Validate() error {
	if h.Encoding == "" {
		h.Encoding = Encoding
	}
	_, _, err := h.check(-1)
	return err
}

func (h *Header) check(size int64) (cells, quads uint64, err error) {
	switch {
	case h.Encoding == Encoding && h.CacheTrees == 0 && h.CacheBytes == 0:
	case h.Encoding == EncodingCoded && h.Shared == 0 &&
		(h.CacheBytes == 0 && h.CacheTrees >= 1 && h.CacheTrees <= maxCacheTrees && h.CacheTrees&(h.CacheTrees-1) == 0 ||
			h.CacheTrees == 0 && h.CacheBytes >= quadpvs.MinCacheBytes && h.CacheBytes <= quadpvs.MaxCacheBytes):
		if size >= 0 && h.CacheBytes > 4*size+64<<20 {
			return 0, 0, fmt.Errorf("a cache of %s for a store file of %s: want at most 4 times the file and 64 MiB", FormatBytes(h.CacheBytes), FormatBytes(size))
		}
	default:
		return 0, 0, fmt.Errorf("tree encoding %q with %d shared subtrees and a cache of %d trees or %d bytes: this build reads %q (no cache) and %q (no sharing, a cache of %s to %s, or, version 4, a power of two up to %d trees)",
			h.Encoding, h.Shared, h.CacheTrees, h.CacheBytes, Encoding, EncodingCoded, FormatBytes(quadpvs.MinCacheBytes), FormatBytes(quadpvs.MaxCacheBytes), maxCacheTrees)
	}
	g, err := quadpvs.NewGeometry(h.Width, h.Height)
	if err != nil {
		return 0, 0, err
	}
	if !(h.DxM > 0 && h.DyM > 0) || math.IsInf(h.DxM, 0) || math.IsInf(h.DyM, 0) {
		return 0, 0, fmt.Errorf("cell spacing %g × %g m, want positive and finite", h.DxM, h.DyM)
	}
	if h.DxM > maxSpacingM || h.DyM > maxSpacingM {
		return 0, 0, fmt.Errorf("cell spacing %g × %g m, want at most %g m", h.DxM, h.DyM, float64(maxSpacingM))
	}
	if _, _, err := h.Params.Model(); err != nil {
		return 0, 0, err
	}
	if err := h.Params.Horizon().Validate(); err != nil {
		return 0, 0, err
	}
	for _, v := range h.GeoTransform {
		if math.IsNaN(v) || math.Abs(v) > maxCoord {
			return 0, 0, fmt.Errorf("geotransform %v, want finite values within ±%g", h.GeoTransform, float64(maxCoord))
		}
	}
	if gt := h.GeoTransform; h.HasGeoTransform && gt[1]*gt[5]-gt[2]*gt[4] == 0 {
		return 0, 0, fmt.Errorf("geotransform %v maps the grid to a line", gt)
	}
	if h.LonLat != nil {
		if h.CRS == "" || !h.HasGeoTransform {
			return 0, 0, fmt.Errorf("a lon/lat grid without a CRS and a geotransform")
		}
		if err := h.LonLat.Check(h.Width, h.Height); err != nil {
			return 0, 0, err
		}
	}
	if h.Engine != nil {
		if err := h.Engine.Check(); err != nil {
			return 0, 0, err
		}
	}
	if w := h.Window; w != ([4]int{}) && (w[0] < 0 || w[1] < 0 || !h.WindowFits()) {
		return 0, 0, fmt.Errorf("window %v of the source raster for a %d×%d grid", w, h.Width, h.Height)
	}
	if l := h.Load; l != nil && !(l.CellSizeM >= 0 && l.CellSizeM <= maxSpacingM && l.ZScale >= 0 && l.ZScale <= 1e6 &&
		math.Abs(l.ZOffsetM) <= 1e5 && math.Abs(l.HeightRangeM[0]) <= 1e5 && math.Abs(l.HeightRangeM[1]) <= 1e5 &&
		l.RawSize[0] >= 0 && l.RawSize[1] >= 0 && l.RawSize[0] <= 1<<20 && l.RawSize[1] <= 1<<20 && l.Band >= 0 && l.Band <= 1<<16) {
		return 0, 0, fmt.Errorf("loading flags %+v, want finite lengths within bounds", *l)
	}
	if h.Cap.Codes < 0 || h.Cap.Nodes < 0 || h.BudgetBytes < 0 || math.IsNaN(h.ZScale) || math.IsInf(h.ZScale, 0) {
		return 0, 0, fmt.Errorf("cap %+v, budget %d bytes, z-scale %g: want counts ≥ 0 and a finite scale", h.Cap, h.BudgetBytes, h.ZScale)
	}
	if h.Shared < 0 || h.Shared > 1<<31 || h.Shared > 0 && (h.RefBits < 1 || h.RefBits > 31 || h.Shared > 1<<h.RefBits) {
		return 0, 0, fmt.Errorf("%d shared subtrees named by %d bits", h.Shared, h.RefBits)
	}
	if a := h.Allocation; a != nil && (a.Policy != "global" || !a.ceilingMatches(h.Cap) ||
		!(a.Threshold >= 0) || math.IsInf(a.Threshold, 0) || !(a.LevelWeight > 0) || math.IsInf(a.LevelWeight, 0) ||
		a.Relaxed < 0 || a.Relaxed > g.QuadCount()) {
		return 0, 0, fmt.Errorf("allocation %+v with a cap of %d codes, %d nodes: want policy global, the cap as ceiling, a threshold ≥ 0, a level weight > 0",
			*a, h.Cap.Codes, h.Cap.Nodes)
	}
	cells, quads = uint64(h.Width)*uint64(h.Height), uint64(g.QuadCount())+uint64(h.Shared)
	if size >= 0 && 8*quads > uint64(size) {
		return 0, 0, fmt.Errorf("a %d×%d grid has %d quads and %d shared subtrees, whose trees take at least %d bytes; the file has %d",
			h.Width, h.Height, g.QuadCount(), h.Shared, 8*quads, size)
	}
	return cells, quads, nil
}

// decodeElev decodes an ELEV payload (a trailing partial value is dropped;
