// Command pvsbake bakes a DEM into a store of potentially visible sets (PVS).
//
//	pvsbake info DEM [--window col,row,w,h]     describe a DEM as JSON
//	pvsbake bake DEM -o OUT --budget B          bake a PVS store
//	pvsbake bake DEM -o PART --budget B --shard i/N  bake one shard of it
//	pvsbake join -o OUT PART...                 write the stores from all shards
//	pvsbake share STORE -o OUT --budget B       re-cap a store to a budget with shared subtrees
//	pvsbake stat STORE                          describe a store as JSON
//	pvsbake viewshed DEM --at col,row -o out.tif  one observer's visibility
//	pvsbake synth --kind hills|urban -o OUT.tif  write a synthetic terrain
//
// Run `pvsbake COMMAND -h` for each command's flags. Exit status: 0 on
// success, 1 on failure, 2 on a usage error.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/frontiersets/frontiersets/internal/cli"
)

const usage = `usage: pvsbake COMMAND [flags]

commands:
  info DEM      print a DEM's size, cell spacing (metres), CRS, height range, nodata count as JSON
  bake DEM      bake every point's PVS into a store capped to a memory budget
                (--shard i/N: one shard's share, into a partial file)
  join PART...  write the stores of a sharded bake from all its partial files
  share STORE   re-cap a store to a smaller budget, storing repeated subtrees once
                (bake at a larger budget first: sharing buys back part of the cap)
  stat STORE    print a store's size, nodes, budget and parameters as JSON
  viewshed DEM  write one observer's visibility as a byte GeoTIFF (255 visible, 0 hidden)
  synth         write a deterministic synthetic terrain (hills or urban) as a GeoTIFF

Run 'pvsbake COMMAND -h' for a command's flags.`

func main() {
	os.Exit(cli.Report("pvsbake", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run executes one pvsbake command; errors are returned for main to print.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return cli.Usagef("no command given")
	}
	switch args[0] {
	case "info":
		return runInfo(args[1:], stdout, stderr)
	case "bake":
		return runBake(args[1:], stdout, stderr)
	case "join":
		return runJoin(args[1:], stdout, stderr)
	case "share":
		return runShare(args[1:], stdout, stderr)
	case "stat":
		return runStat(args[1:], stdout, stderr)
	case "viewshed":
		return runViewshed(args[1:], stdout, stderr)
	case "synth":
		return runSynth(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return cli.Usagef("unknown command %q", args[0])
}
