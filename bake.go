package frontiersets

import (
	"context"
	"errors"
	"fmt"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// BakeOptions say how Bake computes and caps the PVSs. Exactly one of
// BudgetBytes and Nodes must be set.
type BakeOptions struct {
	// Params are the visibility parameters (§3.1: sectors, observer and
	// target heights in metres, …); the zero value means
	// horizon.DefaultParams().
	Params horizon.Params
	// BudgetBytes caps the store's memory in bytes (compress.CapForBudget,
	// §3.4); Nodes caps every PVS at that many nodes instead (Table 4.5).
	BudgetBytes int64
	Nodes       int
	// MinLoss collapses, under the cap, the leaf groups losing the fewest
	// hidden cells first instead of the deepest first.
	MinLoss bool
	// Workers computing viewsheds; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called from one goroutine with the points
	// done and the total.
	Progress func(done, total int)
}

// Bake computes every cell's PVS of the DEM dem (heightmap.Load) — with
// Params.PVSCell = k > 1 and the region model, of its PVS cells of k×k
// heightmap cells (heightmap.Coarsen), judged on its surface — caps the
// PVSs to opt's budget and writes the store to path atomically (a temporary
// file renamed at the end: an interrupted bake leaves no store). It returns
// the store's statistics. Errors: invalid options or parameters, a budget
// below one node per PVS (compress.ErrBudget), ctx's error when cancelled,
// and I/O errors naming path. Bakes take minutes to hours: 1025² cells at
// 1,024 sectors about 9 minutes on two cores (docs/bake.md).
func Bake(ctx context.Context, dem *heightmap.Grid, path string, opt BakeOptions) (compress.Stats, error) {
	p := opt.Params
	if p == (horizon.Params{}) {
		p = horizon.DefaultParams()
	}
	if err := p.Validate(); err != nil {
		return compress.Stats{}, err
	}
	if (opt.BudgetBytes > 0) == (opt.Nodes > 0) || opt.BudgetBytes < 0 || opt.Nodes < 0 {
		return compress.Stats{}, errors.New("frontiersets: set exactly one of BakeOptions.BudgetBytes and BakeOptions.Nodes")
	}
	if dem == nil || dem.Width < 1 || dem.Height < 1 {
		return compress.Stats{}, errors.New("frontiersets: no DEM to bake")
	}
	if p.PVSCell > 1 && dem.Heightmap == nil {
		var err error
		if dem, err = heightmap.Coarsen(dem, p.PVSCell); err != nil {
			return compress.Stats{}, err
		}
	}
	geo, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		return compress.Stats{}, err
	}
	out := bake.Output{Path: path, Cap: compress.Cap{Nodes: opt.Nodes, MinLoss: opt.MinLoss}}
	if opt.BudgetBytes > 0 {
		c, err := compress.CapForBudget(opt.BudgetBytes, geo.QuadCount())
		if err != nil {
			return compress.Stats{}, fmt.Errorf("%s: %w", path, err)
		}
		c.MinLoss = opt.MinLoss
		out.Cap, out.Budget, out.Label = c, opt.BudgetBytes, compress.FormatBytes(opt.BudgetBytes)
	}
	stats, err := bake.Run(ctx, bake.Config{DEM: dem, Params: p, Workers: opt.Workers, Outputs: []bake.Output{out}, Progress: opt.Progress})
	if err != nil {
		return compress.Stats{}, err
	}
	return stats[0], nil
}
