package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
)

const joinSynopsis = "pvsbake join -o OUT PARTIAL... [--quiet]"

// runJoin writes the stores of a sharded bake (bake --shard i/N) from all
// its partial files, byte-identical to a single bake -o OUT.
func runJoin(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("join", joinSynopsis, stderr)
	out := fs.String("o", "", "output store `path`, as given to a single bake: with several budgets, a prefix: PREFIX-<budget>.pvs")
	quiet := fs.Bool("quiet", false, "no progress lines")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || *out == "" {
		fs.Usage()
		return cli.Usagef("join takes -o OUT and the partial files of every shard (pvsbake bake --shard i/N)")
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
	for i, o := range outs {
		paths[i] = outPath(*out, o.Label, len(outs))
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
	for i, p := range paths {
		st := stats[i]
		fmt.Fprintf(stdout, "wrote %s: %d quads, %d nodes (max %d per PVS), %s in memory, hidden kept %.1f%%\n",
			p, st.Quads, st.NodesTotal, st.NodesMax, compress.FormatBytes(st.MemoryBytes), 100*st.HiddenKept)
	}
	fmt.Fprintf(stdout, "joined %d shards in %.1f s\n", len(parts), time.Since(start).Seconds())
	return nil
}
