package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// codeCmd is `pvsbake code`, which writes a store's trees coded given
// their parent quad's (a coded store, format version 4: quadtree.Coded):
// the same PVSs in a fraction of the memory, decoded when read.
func codeCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "code STORE -o OUT", Short: "Write a store's PVSs entropy-coded, each given its parent quad's, decoded when read",
		Long: "Write a coded store: every quad's PVS coded given its parent quad's (the parent's PVS holds its children's), about 0.4-0.5 bits per code against 2.5 in a flat store's memory, decoded when a query reads it. Queries are slower (every tree read is decoded, through a cache). To fill a budget, bake with pvsbake bake --encoding coded --budget B, which caps every PVS at one price so that the store fits (on the urban benchmark's window: 98.9% of hidden cells kept in 0.1 GiB); code codes a store as it is.",
		Args: cli.Args("STORE")}
	fs := c.Flags()
	out := fs.StringP("output", "o", "", "output store `path`")
	budgetArg := fs.String("budget", "", "memory budget the coded store must fit, e.g. 0.1GiB (its memory: blocks, index, tables, the upper levels decoded and a full cache); empty: no check")
	cacheArg := fs.String("cache", "auto", "bytes of decoded PVSs kept for queries, e.g. 16MiB (auto: a 32nd of the budget, from 64 KiB to 256 MiB)")
	asJSON := cli.JSONFlag(fs, "the store written")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *out == "" {
			return cli.Usagef("code needs -o OUT")
		}
		cache, err := parseCache(*cacheArg)
		if err != nil {
			return err
		}
		if err := cli.CheckOutputs([]cli.File{{Flag: "STORE", Path: pos[0]}}, []cli.File{{Flag: "-o", Path: *out}}); err != nil {
			return err
		}
		var budget int64
		if *budgetArg != "" {
			if budget, err = compress.ParseBytes(*budgetArg); err != nil {
				return cli.Usagef("--budget: %v", err)
			}
		}
		s, err := compress.Open(pos[0])
		if err != nil {
			return err
		}
		if s.Shared > 0 || quadtree.CodingOf(s.Hierarchy) != nil {
			return fmt.Errorf("%s has shared subtrees or is coded already: code a store from pvsbake bake or allocate", pos[0])
		}
		if cache == 0 {
			cache = compress.DefaultCacheBytes(s.Hierarchy.StoredBytes() / 5)
		}
		h, err := s.Hierarchy.Code(cache)
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		mem := int64(h.Bytes())
		if budget > 0 && mem > budget {
			return fmt.Errorf("%s coded takes %s, over the budget of %s: allocate it to a smaller budget first (pvsbake allocate), or lower --cache",
				pos[0], compress.FormatBytes(mem), compress.FormatBytes(budget))
		}
		st := s.Stats
		st.MemoryBytes = mem
		hd := s.Header
		if budget > 0 {
			hd.BudgetBytes = budget
		}
		if err := bake.WriteCodedStore(*out, hd, h, s, st); err != nil {
			return err
		}
		cd := quadtree.CodingOf(h)
		bits := 8 * float64(len(cd.Blocks)) / float64(st.CodesTotal)
		if *asJSON {
			return cli.WriteJSON(stdout, codeJSON{Path: *out, BlockBytes: int64(len(cd.Blocks)), BitsPerCode: round(bits, 3), MemoryBytes: mem,
				InputBytes: int64(s.Hierarchy.Bytes()), CacheBytes: quadtree.CodingOf(h).CacheBytes, HiddenKept: round(st.HiddenKept, 6)})
		}
		fmt.Fprintf(stdout, "%s: %.3f bits per code in %s of blocks; %s in memory with a cache of %s (the input: %s), hidden kept %.2f%%\n",
			*out, bits, compress.FormatBytes(int64(len(cd.Blocks))), compress.FormatBytes(mem), compress.FormatBytes(cd.CacheBytes),
			compress.FormatBytes(int64(s.Hierarchy.Bytes())), 100*st.HiddenKept)
		return nil
	}
	return c
}

// codeJSON is code --json's report.
type codeJSON struct {
	Path        string  `json:"path"`
	BlockBytes  int64   `json:"block_bytes"`
	BitsPerCode float64 `json:"bits_per_code"` // the blocks' bits per code, headers included
	MemoryBytes int64   `json:"memory_bytes"`  // the coded store loaded, cache full
	InputBytes  int64   `json:"input_bytes"`   // the input loaded
	CacheBytes  int64   `json:"cache_bytes"`
	HiddenKept  float64 `json:"hidden_kept"`
}

// parseCache reads a --cache flag: auto (0) or bytes within the cache's
// bounds.
func parseCache(arg string) (int64, error) {
	if arg == "auto" {
		return 0, nil
	}
	b, err := compress.ParseBytes(arg)
	if err != nil {
		return 0, cli.Usagef("--cache: %v", err)
	}
	if b < quadpvs.MinCacheBytes || b > quadpvs.MaxCacheBytes {
		return 0, cli.Usagef("--cache %s: want %s to %s", arg, compress.FormatBytes(quadpvs.MinCacheBytes), compress.FormatBytes(quadpvs.MaxCacheBytes))
	}
	return b, nil
}
