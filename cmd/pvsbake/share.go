package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// shareCmd is `pvsbake share`, which re-caps a store to a budget with shared subtrees counted
// (compress.FitShared, thesis §5.2): the store should come from a bake at
// a larger budget, whose trees hold what the larger cap that sharing pays
// for keeps.
func shareCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "share STORE -o OUT --budget B", Short: "Re-cap a store to a smaller budget, storing repeated subtrees once", Args: cli.Args("STORE")}
	fs := c.Flags()
	out := fs.StringP("output", "o", "", "output store `path`")
	budgetArg := fs.String("budget", "", "memory budget of the shared store, e.g. 100MB or 0.1GiB, in the input's accounting (its cap's kind)")
	minCodes := fs.Int("min-codes", 24, "consider subtrees of at least this many `codes` for sharing (≥ 5)")
	asJSON := cli.JSONFlag(fs, "the store written")
	quiet := fs.BoolP("quiet", "q", false, "do not report each trial cap")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *out == "" || *budgetArg == "" || *minCodes < 5 {
			return cli.Usagef("share needs -o OUT, --budget B and --min-codes ≥ 5")
		}
		s, budget, err := openRecap(pos[0], *out, *budgetArg)
		if err != nil {
			return err
		}
		if s.Header.Shared > 0 {
			return fmt.Errorf("%s already has shared subtrees: share a store straight from pvsbake bake", pos[0])
		}
		progress := func(c compress.Cap, size int64, fits bool) {
			if !*quiet {
				fmt.Fprintf(stderr, "share: cap %s: %s shared, %s\n", capString(c), compress.FormatBytes(size), map[bool]string{true: "fits", false: "over the budget"}[fits])
			}
		}
		h, c, st, err := compress.FitShared(s.Hierarchy, s.Cap, budget, quadpvs.ShareOptions{MinCodes: *minCodes}, progress)
		if errors.Is(err, compress.ErrBudget) {
			return fmt.Errorf("%s at %s: %w", pos[0], compress.FormatBytes(budget), err)
		}
		if err != nil {
			return err
		}
		if h.SharedSubtrees() == 0 {
			fmt.Fprintf(stderr, "share: sharing costs more than it saves at %s; %s is written unshared, as a bake at that budget would be\n", compress.FormatBytes(budget), *out)
		}
		unshared, _ := compress.BudgetCap(s.Cap, budget, h.Quads()) // FitShared checked the budget
		stats := bake.RecappedStats(s, h)
		hd := s.Header
		hd.BudgetBytes, hd.Cap, hd.Shared, hd.RefBits = budget, c, h.SharedSubtrees(), quadtree.FlatOf(h).RefBits
		if err := bake.WriteStore(*out, hd, h, s, stats); err != nil {
			return err
		}
		before := st.BytesFlat // the same trees unshared, in the cap's accounting
		if c.Nodes > 0 {
			before = compress.ThesisBytesPerNode * stats.NodesTotal
		}
		if *asJSON {
			return cli.WriteJSON(stdout, shareJSON{Path: *out, Cap: c, UnsharedCap: unshared, Subtrees: st.Subtrees, Refs: st.Refs,
				MemoryBytes: c.Size(h), UnsharedBytes: before, HiddenKept: round(stats.HiddenKept, 6), InputHiddenKept: round(s.HiddenKept, 6)})
		}
		fmt.Fprintf(stdout, "%s: cap %s (the budget alone allows %s), %d shared subtrees, %d references, %s in memory (%s unshared), hidden kept %.2f%% (input %.2f%%)\n",
			*out, capString(c), capString(unshared), st.Subtrees, st.Refs, compress.FormatBytes(c.Size(h)),
			compress.FormatBytes(before), 100*stats.HiddenKept, 100*s.HiddenKept)
		return nil
	}
	return c
}

// shareJSON is share --json's report.
type shareJSON struct {
	Path            string       `json:"path"`
	Cap             compress.Cap `json:"cap"`
	UnsharedCap     compress.Cap `json:"unshared_cap"` // what the budget allows without sharing
	Subtrees        int          `json:"shared_subtrees"`
	Refs            int          `json:"references"`
	MemoryBytes     int64        `json:"memory_bytes"`
	UnsharedBytes   int64        `json:"unshared_bytes"`
	HiddenKept      float64      `json:"hidden_kept"`
	InputHiddenKept float64      `json:"input_hidden_kept"`
}

func capString(c compress.Cap) string {
	if c.Nodes > 0 {
		return fmt.Sprintf("%d nodes", c.Nodes)
	}
	return fmt.Sprintf("%d codes", c.Codes)
}

// openRecap checks a re-capping command's input and output (share,
// allocate), parses its budget and opens the input store.
func openRecap(in, out, budgetArg string) (*compress.Store, int64, error) {
	if err := cli.CheckOutputs([]cli.File{{Flag: "STORE", Path: in}}, []cli.File{{Flag: "-o", Path: out}}); err != nil {
		return nil, 0, err
	}
	budget, err := compress.ParseBytes(budgetArg)
	if err != nil {
		return nil, 0, cli.Usagef("--budget: %v", err)
	}
	s, err := bake.OpenStore(in)
	return s, budget, err
}
