package compress

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Global allocation, to keep more hidden cells per byte: instead of one
// cap for every tree (CapForBudget), one price for the whole store. Every
// tree makes the prefix of its min-loss collapses (quadpvs.Capper.MinLoss)
// that maximises λ·(bytes saved) − (hidden cells lost), λ the price in
// hidden cells per byte (quadpvs.Capper.LossSizes): simple PVSs give up
// bytes that cost them little, complex ones keep more, and no tree pays
// for a collapse that saves no byte. For its λ the result loses the
// fewest hidden cells of any choice of prefixes with as many bytes saved.
// λ is the smallest price of a ladder (ladder) whose trees fit the budget;
// the bytes left over go to trees at the ladder's previous step, in quad
// index order, while they fit. A per-tree ceiling (codes, or nodes in the
// thesis's accounting) bounds the largest tree, and so the slowest query.

// Allocation records a global allocation in the store header.
type Allocation struct {
	// Policy is "global".
	Policy string `json:"policy"`
	// Accounting is "" for this project's (bytes of codes and rank
	// samples, and QuadOverhead per quad), "thesis" for the thesis's 3
	// bytes per node (§3.4, Table 4.5), "coded" for a coded bake's (the
	// price in hidden cells per code; the store's bytes are its blocks').
	Accounting string `json:"accounting,omitempty"`
	// CeilingCodes bounds every tree's codes (also the header's Cap.Codes);
	// in the thesis's accounting CeilingNodes bounds its nodes instead
	// (Cap.Nodes), and CeilingCodes is 0.
	CeilingCodes int `json:"ceiling_codes,omitempty"`
	CeilingNodes int `json:"ceiling_nodes,omitempty"`
	// Threshold is the price λ in hidden cells (weighted) per byte (per
	// node in the thesis's accounting); Relaxed trees were capped at the
	// ladder's step below it.
	Threshold float64 `json:"threshold"`
	Relaxed   int     `json:"relaxed_trees"`
	// LevelWeight w: a collapse in a quad of level l counts its hidden
	// cells × w^l. 1 counts every hidden cell alike.
	LevelWeight float64 `json:"level_weight"`
}

// ceilingMatches reports whether a's ceiling is the cap's: codes in this
// project's accounting, nodes in the thesis's.
func (a *Allocation) ceilingMatches(c Cap) bool {
	switch a.Accounting {
	case "", "coded":
		return a.CeilingCodes >= 1 && a.CeilingNodes == 0 && c.Codes == a.CeilingCodes && c.Nodes == 0
	case "thesis":
		return a.CeilingNodes >= 1 && a.CeilingCodes == 0 && c.Nodes == a.CeilingNodes && c.Codes == 0
	}
	return false
}

// AllocateOptions configure Allocate.
type AllocateOptions struct {
	// Thesis counts the budget in the thesis's accounting, 3 bytes per
	// node (ThesisNodeCap), instead of this project's.
	Thesis bool
	// Ceiling bounds each tree's codes (nodes with Thesis); 0 means 4
	// times the uniform cap the budget allows (BudgetCap). It is clipped to
	// the input's own cap of that kind, beyond which the input holds
	// nothing.
	Ceiling int
	// LevelWeight is Allocation.LevelWeight; 0 means 1.
	LevelWeight float64
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int
}

// DefaultCeilingFactor is the ceiling, in uniform caps, when
// AllocateOptions.Ceiling is 0.
const DefaultCeilingFactor = 4

// PriceLadder returns the prices λ a global allocation tries, in hidden
// cells per byte (or per code): 0 (collapses that lose nothing), then
// steps of 2^(1/16) from 2^−8 up to at least max, increasing.
func PriceLadder(max float64) []float64 { return ladder(max) }

func ladder(max float64) []float64 {
	th := []float64{0}
	for k := -128; th[len(th)-1] < max; k++ {
		th = append(th, math.Exp2(float64(k)/16))
	}
	return th
}

// Allocate returns h's trees re-capped at one global price so that the
// loaded hierarchy (Hierarchy.Bytes: QuadOverhead + quadtree.BytesFor(codes)
// per tree; with opt.Thesis, 3 bytes per node) fits budget bytes, with the
// record to put in the header: the memory limit of thesis §3.4 spent
// across trees instead of per tree. h's trees should be uncapped or
// min-loss capped at a larger cap (a store baked with Cap.MinLoss at a
// larger budget): each result tree is then the min-loss cap of the
// uncapped tree at its own size. It reads h only, from opt.Workers
// goroutines, and runs min-loss collapses over every tree three times
// (the bytes at every price; the sizes at the chosen price; the capping),
// keeping nothing per tree and price between passes. Errors: ErrBudget
// when even every tree collapsed to one code (node) does not fit; a
// shared h; a ceiling below 1; a level weight that is not a positive
// number.
func Allocate(h *quadpvs.Hierarchy, from Cap, budget int64, opt AllocateOptions) (*quadpvs.Hierarchy, Allocation, error) {
	if h.SharedSubtrees() > 0 {
		return nil, Allocation{}, errors.New("compress: allocating a shared hierarchy: share after allocating")
	}
	quads := h.Quads()
	thesis := opt.Thesis
	kind := Cap{} // the accounting's cap kind, for BudgetCap
	if thesis {
		kind.Nodes = 1
	}
	uniform, err := BudgetCap(kind, budget, quads)
	if err != nil {
		return nil, Allocation{}, err
	}
	unit, ceiling, inputCap := "codes", opt.Ceiling, from.Codes
	if thesis {
		unit, inputCap = "nodes", from.Nodes
	}
	if ceiling == 0 {
		ceiling = int(min(int64(max(uniform.Codes, uniform.Nodes))*DefaultCeilingFactor, math.MaxInt32))
	}
	if inputCap > 0 {
		ceiling = min(ceiling, inputCap)
	}
	if ceiling < 1 {
		return nil, Allocation{}, fmt.Errorf("compress: allocation ceiling of %d %s, want at least 1", ceiling, unit)
	}
	// A tree's memory in the accounting: codes and rank samples, and the
	// quad's overhead; or the thesis's 3 bytes per node.
	cost := func(codes, nodes int32) int64 {
		if thesis {
			return ThesisBytesPerNode * int64(nodes)
		}
		return int64(QuadOverhead + quadtree.BytesFor(int(codes)))
	}
	w := opt.LevelWeight
	if w == 0 {
		w = 1
	}
	if !(w > 0) || math.IsInf(w, 0) {
		return nil, Allocation{}, fmt.Errorf("compress: level weight %g, want a positive number", w)
	}
	levels := h.G.Levels()
	cells := float64(h.G.Width) * float64(h.G.Height)
	th := ladder(cells * math.Pow(max(w, 1), float64(levels)))
	weight := func(q int) float64 { return math.Pow(w, float64(h.Level(q))) }
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	// Pass 1: the store's bytes at every price.
	totals := make([]int64, len(th))
	var mu sync.Mutex
	err = parallel(quads, workers, func() func(lo, hi int) error {
		c := quadpvs.Capper{G: h.G}
		sizes, nodes := make([]int32, len(th)), make([]int32, len(th))
		sum := make([]int64, len(th))
		return func(lo, hi int) error {
			clear(sum)
			for q := lo; q < hi; q++ {
				t := h.PVS(q)
				if err := c.LossSizes(sizes, nodes, &t, ceiling, thesis, weight(q), th); err != nil {
					return err
				}
				for j, s := range sizes {
					sum[j] += cost(s, nodes[j])
				}
			}
			mu.Lock()
			for j := range totals {
				totals[j] += sum[j]
			}
			mu.Unlock()
			return nil
		}
	})
	if err != nil {
		return nil, Allocation{}, err
	}
	j := 0
	for j < len(th) && totals[j] > budget {
		j++
	}
	if j == len(th) {
		return nil, Allocation{}, fmt.Errorf("%w: %s for %d quads even with every PVS at one node", ErrBudget, FormatBytes(budget), quads)
	}

	// Pass 2: each tree's size (codes, nodes) at λ = th[j] and, when j > 0,
	// at the step below; the spare bytes go to trees at the lower step, in
	// index order.
	steps := th[max(j-1, 0) : j+1]
	size, lower := make([]int32, quads), make([]int32, quads)
	sizeNodes, lowerNodes := make([]int32, quads), make([]int32, quads)
	err = parallel(quads, workers, func() func(lo, hi int) error {
		c := quadpvs.Capper{G: h.G}
		s, n := make([]int32, len(steps)), make([]int32, len(steps))
		return func(lo, hi int) error {
			for q := lo; q < hi; q++ {
				t := h.PVS(q)
				if err := c.LossSizes(s, n, &t, ceiling, thesis, weight(q), steps); err != nil {
					return err
				}
				lower[q], size[q] = s[0], s[len(s)-1]
				lowerNodes[q], sizeNodes[q] = n[0], n[len(n)-1]
			}
			return nil
		}
	})
	if err != nil {
		return nil, Allocation{}, err
	}
	spare, relaxed := budget-totals[j], 0
	for q := range size {
		if d := cost(lower[q], lowerNodes[q]) - cost(size[q], sizeNodes[q]); lower[q] > size[q] && d <= spare {
			spare -= d
			size[q] = lower[q]
			relaxed++
		}
	}

	// Pass 3: every tree min-loss capped at its size.
	trees := make([]quadpvs.Tree, quads)
	err = parallel(quads, workers, func() func(lo, hi int) error {
		c := quadpvs.Capper{MinLoss: true, G: h.G}
		return func(lo, hi int) error {
			for q := lo; q < hi; q++ {
				t := h.PVS(q)
				if t.Len() <= int(size[q]) {
					t.CopyTo(&trees[q])
					continue
				}
				if err := c.CapCodes(&trees[q], &t, int(size[q])); err != nil {
					return err
				}
			}
			return nil
		}
	})
	if err != nil {
		return nil, Allocation{}, err
	}
	out := quadpvs.NewHierarchy(h.G)
	for l := range levels {
		cols, rows := h.G.QuadsAcross(l)
		for y := range rows {
			for x := range cols {
				q := out.QuadIndex(l, x, y)
				out.Set(l, x, y, &trees[q])
				trees[q] = quadpvs.Tree{}
			}
		}
	}
	a := Allocation{Policy: "global", CeilingCodes: ceiling, Threshold: th[j], Relaxed: relaxed, LevelWeight: w}
	if thesis {
		a.Accounting, a.CeilingCodes, a.CeilingNodes = "thesis", 0, ceiling
	}
	return out, a, nil
}

// parallel runs the work on [0,n) in chunks of 256 among workers
// goroutines, each with the function work returns (its own scratch), and
// returns the first error.
func parallel(n, workers int, work func() func(lo, hi int) error) error {
	const chunk = 256
	var next atomic.Int64
	var eg errgroup.Group
	for range min(workers, (n+chunk-1)/chunk) {
		eg.Go(func() error {
			f := work()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return nil
				}
				if err := f(lo, min(lo+chunk, n)); err != nil {
					return err
				}
			}
		})
	}
	return eg.Wait()
}
