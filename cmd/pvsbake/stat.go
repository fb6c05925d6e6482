package main

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// storeStat is the JSON object `pvsbake stat` prints.
type storeStat struct {
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
	Source      string             `json:"source"`
	Window      [4]int             `json:"window"`
	Params      compress.VisParams `json:"params"`
	LoadSeconds float64            `json:"load_seconds"`
	LoadMBps    float64            `json:"load_mb_per_s"`
}

func runStat(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("stat", "pvsbake stat STORE", stderr)
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return cli.Usagef("stat takes one store")
	}
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
		Source: s.Source, Window: s.Window, Params: s.Params,
		LoadSeconds: round(el, 4), LoadMBps: round(float64(fi.Size())/1e6/el, 1),
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
