package main

import (
	"fmt"
	"io"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// runShareBench measures what storing identical subtrees once saves
// (quadpvs.Hierarchy.Share) on stores as they are, at their own caps:
// go run ./bench share [--min-codes 24] STORE...
func runShareBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("share", "bench share [--min-codes 24] STORE...", stderr)
	minCodes := fs.Int("min-codes", 24, "consider subtrees of at least this many `codes`")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || *minCodes < 5 {
		fs.Usage()
		return cli.Usagef("share takes stores and --min-codes ≥ 5")
	}
	fmt.Fprintln(stdout, "| store | trees | codes | codes kept | shared subtrees | references | bytes | shared | saved | time |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range pos {
		s, err := bake.OpenStore(p)
		if err != nil {
			return err
		}
		start := time.Now()
		_, st, err := s.Hierarchy.Share(quadpvs.ShareOptions{MinCodes: *minCodes})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintf(stdout, "| %s | %d | %d | %d | %d | %d | %s | %s | %.1f%% | %.1f s |\n", p, s.Hierarchy.Quads(), st.CodesFlat, st.CodesKept,
			st.Subtrees, st.Refs, compress.FormatBytes(st.BytesFlat), compress.FormatBytes(st.BytesShare),
			100*(1-float64(st.BytesShare)/float64(st.BytesFlat)), time.Since(start).Seconds())
	}
	return nil
}
