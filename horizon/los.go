package horizon

import (
	"fmt"
	"strconv"
	"strings"
)

// LOS is a visibility model: the rule by which a target is judged hidden
// from an observer's sector profiles. Each model has an implementation
// (lineModel: sector.go, conservative.go) with a scalar reference (Worker)
// and block kernels (BlockWorker) that compute the same bits, and
// a version that changes whenever the bits a bake stores change, so that
// stores, shards and checkpoints of different versions are never mixed.
//
// The zero value is LOSSector, so that a Params literal keeps the thesis's
// model; DefaultParams, the library's Bake and the command line default to
// LOSRegion.
type LOS uint8

const (
	// LOSSector is the thesis's model (§3.1): a target is hidden when it
	// lies below the profile of its bracketing sector midlines. It can hide
	// a target whose exact line of sight passes beside a ridge on the
	// midline (clearing the terrain by up to metres on rough terrain).
	LOSSector LOS = iota
	// LOSConservative hides a target only when the exact line of sight to
	// it is blocked: profiles from lower bounds of the surface over the
	// arc between two midlines (conservative.go). It never hides an
	// exactly visible cell and costs more per observer.
	LOSConservative
	// LOSRegion is from-region visibility (region.go): a target cell is
	// hidden only when no position in the observer's cell sees any
	// position in the target's, eye and top above the bilinear surface
	// there. It hides fewer cells than LOSConservative and holds for
	// players standing anywhere, not only on the samples.
	LOSRegion
	numLOS
)

// losInfo names each model and gives its versions. A version is bumped
// whenever the same DEM and parameters would bake other bytes under the
// model (TestGolden's hashes are keyed by name and version).
//
// version is the newest this build bakes, dflt the one a bake gets when
// Params.Version is 0, oldest the oldest it still bakes (Params.Version),
// for comparisons. Region version 2 bounds each arc over every sample in
// the swept square four times, once in each patch that shares it;
// version 3 once, in the patch facing the observer (regionPoint); version
// 4 bounds the surface along cuts across the wedge instead of over swept
// squares (cut.go) on heightmap cells, and keeps version 3's squares on
// PVS cells of more than one heightmap cell (Params.PVSCell); version 5,
// the default, takes the cuts on PVS cells too. The cuts hide more behind
// narrow ridges and walls, and bake in 0.7 of the squares' time.
var losInfo = [numLOS]struct {
	name                  string
	version, dflt, oldest int
}{
	LOSSector:       {"sector", 1, 1, 1},
	LOSConservative: {"conservative", 1, 1, 1},
	LOSRegion:       {"region", 5, 5, 2},
}

// String returns the model's name: "sector", "conservative" or "region".
func (l LOS) String() string {
	if l < numLOS {
		return losInfo[l].name
	}
	return fmt.Sprintf("LOS(%d)", uint8(l))
}

// Version returns the model's newest version in this build (≥ 1), 0 for
// an unknown model.
func (l LOS) Version() int {
	if l < numLOS {
		return losInfo[l].version
	}
	return 0
}

// Default returns the version a bake of the model gets when
// Params.Version is 0 (from Oldest to Version), 0 for an unknown model.
func (l LOS) Default() int {
	if l < numLOS {
		return losInfo[l].dflt
	}
	return 0
}

// Oldest returns the oldest version of the model this build bakes
// (Params.Version), 0 for an unknown model.
func (l LOS) Oldest() int {
	if l < numLOS {
		return losInfo[l].oldest
	}
	return 0
}

// Valid reports whether l is a model this build implements.
func (l LOS) Valid() bool { return l < numLOS }

// ParseLOS returns the model named name ("sector", "conservative" or
// "region").
// Errors wrap ErrParams.
func ParseLOS(name string) (LOS, error) {
	for l := range numLOS {
		if losInfo[l].name == name {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w: visibility model %q, want %s", ErrParams, name, LOSNames())
}

// ParseModel returns the model and version named by name: a model's name
// (ParseLOS) for its default version (0), or name-vN for version N, which
// this build must bake (from LOS.Oldest to LOS.Version; 0 when N is the
// default). Errors wrap ErrParams.
func ParseModel(name string) (LOS, int, error) {
	if l, err := ParseLOS(name); err == nil {
		return l, 0, nil
	}
	i := strings.LastIndex(name, "-v")
	if i < 0 {
		return 0, 0, fmt.Errorf("%w: visibility model %q, want %s", ErrParams, name, ModelNames())
	}
	l, err := ParseLOS(name[:i])
	if err != nil {
		return 0, 0, err
	}
	v, err := strconv.Atoi(name[i+2:])
	if err != nil || v < l.Oldest() || v > l.Version() {
		return 0, 0, fmt.Errorf("%w: visibility model %q: this build bakes %s versions %d to %d", ErrParams, name, l, l.Oldest(), l.Version())
	}
	if v == l.Default() {
		v = 0
	}
	return l, v, nil
}

// ModelNames lists the names ParseModel takes: each model's, then name-vN
// for every other version than the default this build bakes, "sector or
// conservative or region or region-v2 or region-v3 or region-v4".
func ModelNames() string {
	names := []string{LOSNames()}
	for l := range numLOS {
		for v := l.Oldest(); v <= l.Version(); v++ {
			if v != l.Default() {
				names = append(names, fmt.Sprintf("%s-v%d", l, v))
			}
		}
	}
	return strings.Join(names, " or ")
}

// LOSNames lists the models' names, "sector or conservative or region".
func LOSNames() string {
	names := make([]string, numLOS)
	for l := range numLOS {
		names[l] = losInfo[l].name
	}
	return strings.Join(names, " or ")
}

// lineModel is a visibility model's implementation: the tables New builds
// for it and the walk of its profiles, by the scalar reference (Worker)
// and by the block engine (BlockWorker), which must give the same bits.
// Both engines then judge a cell against the profiles the same way, by
// the lower of sectors k0 and k0+Model.k1 at its distance. lineModels
// holds each LOS's; a Model keeps its own (Model.lines).
type lineModel interface {
	// setup builds the model's per-sector tables and sets m.k1 (New).
	setup(m *Model)
	// walk fills w's profiles of every sector for the observer at
	// (col,row) and sets w's eye, tau, col and row.
	walk(w *Worker, col, row int)
	// walkBlock fills sector k's profile rows pos+1 … pos+n of every lane
	// of bw's block (nmax the lanes' most steps, bw.stop the band's
	// height per chunk of 2^stepShift steps, chunks of them), sets
	// bw.n[k] and returns n.
	walkBlock(bw *BlockWorker, k, pos, nmax, chunks int) int
	// tableBytes bounds, in bytes, the memory the model's tables add to a
	// Model of a width×height terrain with the given sectors.
	tableBytes(width, height, sectors int) int64
}

var lineModels = [numLOS]lineModel{LOSSector: sectorLines{}, LOSConservative: conservativeLines{}, LOSRegion: regionLines{}}
