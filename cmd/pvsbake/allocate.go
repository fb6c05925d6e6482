package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// allocateCmd is `pvsbake allocate`, which re-caps a store to a budget by
// one price in hidden cells per byte for all its trees (compress.Allocate)
// instead of one cap
// per tree: the store should come from a min-loss bake at a larger budget
// (the ceiling's), whose trees hold what the larger trees keep.
func allocateCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "allocate STORE -o OUT --budget B", Short: "Re-cap a store to a smaller budget, giving each PVS the bytes that keep the most hidden cells",
		Long: "Re-cap a store to a smaller budget by global allocation: every PVS collapses, least loss first, the leaf groups worth one price in hidden cells per byte saved, the price chosen so the store fits the budget, and no PVS keeps more than the ceiling. Bake the input with --cap-policy min-loss at a larger budget (4× the target covers the default ceiling).",
		Args: cli.Args("STORE")}
	fs := c.Flags()
	out := fs.StringP("output", "o", "", "output store `path`")
	budgetArg := fs.String("budget", "", "memory budget of the store written, e.g. 100MB or 0.1GiB, in the input's accounting: this project's (codes, and 24 bytes per quad), or the thesis's 3 bytes per node for a store baked with --nodes")
	ceiling := fs.Int("ceiling", 0, "most `codes` any PVS keeps (nodes for a store capped in nodes), which bounds the slowest query (0: 4× the uniform cap the budget allows)")
	weight := fs.Float64("level-weight", 1, "count a hidden cell lost in a quad of level l as `w`^l cells (1: every hidden cell alike)")
	workers := fs.IntP("workers", "j", 0, "`goroutines` (0: one per core)")
	asJSON := cli.JSONFlag(fs, "the store written")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *out == "" || *budgetArg == "" {
			return cli.Usagef("allocate needs -o OUT and --budget B")
		}
		if *ceiling < 0 || !(*weight > 0) || *workers < 0 {
			return cli.Usagef("allocate: --ceiling %d, --level-weight %g, --workers %d: want a ceiling ≥ 0, a weight > 0, workers ≥ 0", *ceiling, *weight, *workers)
		}
		s, budget, err := openRecap(pos[0], *out, *budgetArg)
		if err != nil {
			return err
		}
		if !s.Cap.MinLoss && (s.Cap.Codes > 0 || s.Cap.Nodes > 0) {
			fmt.Fprintf(stderr, "allocate: %s was capped deepest-first; its trees are re-capped min-loss from there (bake with --cap-policy min-loss for the best result)\n", pos[0])
		}
		opt := compress.AllocateOptions{Ceiling: *ceiling, LevelWeight: *weight, Workers: *workers}
		stats, a, err := bake.AllocateStore(s, *out, budget, opt)
		if errors.Is(err, compress.ErrBudget) {
			return fmt.Errorf("%s at %s: %w", pos[0], compress.FormatBytes(budget), err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		quads := s.Hierarchy.Quads()
		uniform, _ := compress.BudgetCap(s.Cap, budget, quads) // Allocate checked the budget
		accounted := stats.MemoryBytes                         // the loaded hierarchy's bytes, or 3 per node
		per, ceil, mem := "byte", fmt.Sprintf("%d codes", a.CeilingCodes), compress.FormatBytes(stats.MemoryBytes)+" in memory"
		if a.Accounting == "thesis" {
			accounted = compress.ThesisBytesPerNode * stats.NodesTotal
			per, ceil = "node", fmt.Sprintf("%d nodes", a.CeilingNodes)
			mem = fmt.Sprintf("%s at 3 bytes per node (%s in memory)", compress.FormatBytes(accounted), compress.FormatBytes(stats.MemoryBytes))
		}
		if *asJSON {
			return cli.WriteJSON(stdout, allocateJSON{Path: *out, Allocation: a, UniformCap: uniform, CodesMean: round(float64(stats.CodesTotal)/float64(quads), 1),
				MemoryBytes: stats.MemoryBytes, AccountedBytes: accounted, HiddenKept: round(stats.HiddenKept, 6), InputHiddenKept: round(s.HiddenKept, 6)})
		}
		fmt.Fprintf(stdout, "%s: price %.3g hidden cells per %s (%d PVSs one step below), ceiling %s (the uniform cap: %s), %.0f codes per PVS on average, %s, hidden kept %.2f%% (input %.2f%%)\n",
			*out, a.Threshold, per, a.Relaxed, ceil, capString(uniform), float64(stats.CodesTotal)/float64(quads),
			mem, 100*stats.HiddenKept, 100*s.HiddenKept)
		return nil
	}
	return c
}

// allocateJSON is allocate --json's report.
type allocateJSON struct {
	Path            string              `json:"path"`
	Allocation      compress.Allocation `json:"allocation"`
	UniformCap      compress.Cap        `json:"uniform_cap"` // what every PVS would get without the allocation
	CodesMean       float64             `json:"codes_mean"`
	MemoryBytes     int64               `json:"memory_bytes"`    // the loaded hierarchy
	AccountedBytes  int64               `json:"accounted_bytes"` // in the allocation's accounting (the budget's)
	HiddenKept      float64             `json:"hidden_kept"`
	InputHiddenKept float64             `json:"input_hidden_kept"`
}
