package horizon

import (
	"fmt"
	"strings"
)

// LOS is a visibility model: the rule by which a target is judged hidden
// from an observer's sector profiles. Each model has a scalar reference
// (Worker) and block kernels (BlockWorker) that compute the same bits, and
// a version that changes whenever the bits a bake stores change, so that
// stores, shards and checkpoints of different versions are never mixed.
//
// The zero value is LOSSector, so that a Params literal keeps the thesis's
// model; DefaultParams, the library's Bake and the command line default to
// LOSConservative.
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
	numLOS
)

// losInfo names each model and gives its version. A version is bumped
// whenever the same DEM and parameters would bake other bytes under the
// model (TestGolden's hashes are keyed by name and version).
var losInfo = [numLOS]struct {
	name    string
	version int
}{
	LOSSector:       {"sector", 1},
	LOSConservative: {"conservative", 1},
}

// String returns the model's name: "sector" or "conservative".
func (l LOS) String() string {
	if l < numLOS {
		return losInfo[l].name
	}
	return fmt.Sprintf("LOS(%d)", uint8(l))
}

// Version returns the model's version in this build (≥ 1), 0 for an
// unknown model.
func (l LOS) Version() int {
	if l < numLOS {
		return losInfo[l].version
	}
	return 0
}

// Valid reports whether l is a model this build implements.
func (l LOS) Valid() bool { return l < numLOS }

// ParseLOS returns the model named name ("sector" or "conservative").
// Errors wrap ErrParams.
func ParseLOS(name string) (LOS, error) {
	for l := range numLOS {
		if losInfo[l].name == name {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w: visibility model %q, want %s", ErrParams, name, LOSNames())
}

// LOSNames lists the models' names, "sector or conservative".
func LOSNames() string {
	names := make([]string, numLOS)
	for l := range numLOS {
		names[l] = losInfo[l].name
	}
	return strings.Join(names, " or ")
}
