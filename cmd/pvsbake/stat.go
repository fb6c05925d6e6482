package main

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// storeStat is the JSON object `pvsbake stat` prints.
type storeStat struct {
	Path        string             `json:"path"` // the store file, as given
	Points      int                `json:"points"`
	Quads       int                `json:"quads"`
	NodesTotal  int64              `json:"nodes_total"`
	NodesMax    int                `json:"nodes_max"`
	NodesMean   float64            `json:"nodes_mean"`
	Bytes       int64              `json:"bytes"`      // the loaded hierarchy in memory
	FileBytes   int64              `json:"file_bytes"` // the store file
	BudgetBytes int64              `json:"budget_bytes"`
	Cap         compress.Cap       `json:"cap"`
	Shared      int                `json:"shared_subtrees"`
	Refs        int                `json:"references"`
	HiddenKept  float64            `json:"hidden_kept"`
	Width       int                `json:"width"`
	Height      int                `json:"height"`
	DxM         float64            `json:"dx_m"`
	DyM         float64            `json:"dy_m"`
	CRS         string             `json:"crs"`
	Source      string             `json:"source"` // the DEM it was baked from
	Window      [4]int             `json:"window"`
	Params      compress.VisParams `json:"params"`
	LoadSeconds float64            `json:"load_seconds"`
	LoadMBps    float64            `json:"load_mb_per_s"`
}

func statCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "stat STORE", Short: "Print a store's size, nodes, budget and parameters as JSON", Args: cli.Args("STORE")}
	c.Flags().Bool("json", true, "print JSON (always; accepted like every command's --json)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		start := time.Now()
		s, err := bake.OpenStore(pos[0])
		if err != nil {
			return err
		}
		el := time.Since(start).Seconds()
		fi, err := os.Stat(pos[0])
		if err != nil {
			return err
		}
		out := storeStat{
			Points: s.Width * s.Height, Quads: s.Hierarchy.Quads(), NodesTotal: s.NodesTotal, NodesMax: s.NodesMax,
			NodesMean: round(float64(s.NodesTotal)/float64(s.Hierarchy.Quads()), 2),
			Bytes:     int64(s.Hierarchy.Bytes()), FileBytes: fi.Size(), BudgetBytes: s.BudgetBytes, Cap: s.Cap,
			Shared: s.Hierarchy.Shared, Refs: len(s.Hierarchy.Refs),
			HiddenKept: round(s.HiddenKept, 4), Width: s.Width, Height: s.Height, DxM: s.DxM, DyM: s.DyM, CRS: s.CRSName,
			Path: pos[0], Source: s.Source, Window: s.Window, Params: s.Params,
			LoadSeconds: round(el, 4), LoadMBps: round(float64(fi.Size())/1e6/el, 1),
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return c
}
