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
//	pvsbake completion bash|zsh|fish|powershell  a shell completion script
//
// Run `pvsbake COMMAND --help` for each command's flags. Exit status: 0 on
// success (help and --version included), 1 on failure, 2 on a usage error.
package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/fault"
)

func main() {
	cli.IgnoreFileSizeLimit()
	os.Exit(cli.Report("pvsbake", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run executes one pvsbake command; errors are returned for main to print.
func run(args []string, stdout, stderr io.Writer) (err error) {
	// A store file cut or changed while a command reads it in place is
	// an error wrapping fault.ErrFault, not the process's end (SIGBUS);
	// the goroutines a command starts arm their own.
	defer fault.Recover(&err, fault.Arm())
	return cli.Execute(newRoot(stdout, stderr), args, stdout, stderr)
}

// newRoot builds the command tree; output goes to stdout and stderr.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := cli.NewRoot("pvsbake", "Bake a DEM into a store of potentially visible sets (PVS)",
		"pvsbake bakes a DEM into a store of potentially visible sets: for every cell,\n"+
			"which cells a player standing there may see, as a predictive quadtree per quad\n"+
			"of a hierarchy, capped to a memory budget (thesis §3.1–3.4). frontierq answers\n"+
			"frontier-set queries on the store.")
	root.Args = cobra.ArbitraryArgs
	root.RunE = cli.UnknownCommand
	root.AddCommand(infoCmd(stdout, stderr), bakeCmd(stdout, stderr), joinCmd(stdout, stderr), shareCmd(stdout, stderr), allocateCmd(stdout, stderr), codeCmd(stdout, stderr),
		statCmd(stdout, stderr), viewshedCmd(stdout, stderr), synthCmd(stdout, stderr))
	return root
}
