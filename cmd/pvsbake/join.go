package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// joinCmd is `pvsbake join`, which writes the stores of a sharded bake (bake --shard i/N) from all
// its partial files, byte-identical to a single bake -o OUT.
func joinCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "join -o OUT PART...", Short: "Write the stores of a sharded bake from all its partial files", Args: cli.MinArgs("PART")}
	fs := c.Flags()
	out := fs.StringP("output", "o", "", "output store `path`, as given to a single bake: with several budgets, a prefix: PREFIX-<budget>.pvs")
	asJSON := cli.JSONFlag(fs, "the stores written")
	quiet := fs.BoolP("quiet", "q", false, "no progress lines")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *out == "" {
			return cli.Usagef("join needs -o OUT, the store path given to the shards' bakes")
		}
		var parts []*bake.Partial
		defer func() {
			for _, p := range parts {
				p.Close()
			}
		}()
		for _, path := range pos {
			p, err := bake.OpenPartial(path)
			if err != nil {
				return err
			}
			parts = append(parts, p)
		}
		outs := parts[0].Header.Outputs
		paths := make([]string, len(outs))
		var ins, written []cli.File
		for _, p := range parts {
			ins = append(ins, cli.File{Flag: "PART", Path: p.Path})
		}
		for i, o := range outs {
			paths[i] = outPath(*out, o.Label, len(outs))
			written = append(written, cli.File{Flag: "-o", Path: paths[i]})
		}
		if err := cli.CheckOutputs(ins, written); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		start := time.Now()
		next := start.Add(30 * time.Second)
		cfg := bake.JoinConfig{Parts: parts, Paths: paths}
		if !*quiet {
			cfg.Progress = func(done, total int) {
				if now := time.Now(); now.After(next) && done < total {
					next = now.Add(30 * time.Second)
					fmt.Fprintf(stderr, "pvsbake: joined %d of %d subtrees after %s\n", done, total, formatDuration(now.Sub(start)))
				}
			}
		}
		stats, err := bake.Join(ctx, cfg)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			return err
		}
		if *asJSON {
			rep := joinJSON{Shards: len(parts), Seconds: round(time.Since(start).Seconds(), 3)}
			for i, p := range paths {
				rep.Stores = append(rep.Stores, storeJSON{Path: p, Stats: stats[i]})
			}
			return cli.WriteJSON(stdout, rep)
		}
		for i, p := range paths {
			st := stats[i]
			fmt.Fprintf(stdout, "wrote %s: %d quads, %d nodes (max %d per PVS), %s in memory, hidden kept %.1f%%\n",
				p, st.Quads, st.NodesTotal, st.NodesMax, compress.FormatBytes(st.MemoryBytes), 100*st.HiddenKept)
		}
		fmt.Fprintf(stdout, "joined %d shards in %.1f s\n", len(parts), time.Since(start).Seconds())
		return nil
	}
	return c
}

// joinJSON is join --json's report.
type joinJSON struct {
	Stores  []storeJSON `json:"stores"`
	Shards  int         `json:"shards"`
	Seconds float64     `json:"seconds"`
}
