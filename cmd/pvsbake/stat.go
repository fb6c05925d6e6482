package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// storeStat is the JSON object `pvsbake stat` prints.
type storeStat struct {
	Path        string       `json:"path"` // the store file, as given
	Points      int          `json:"points"`
	Quads       int          `json:"quads"`
	NodesTotal  int64        `json:"nodes_total"`
	NodesMax    int          `json:"nodes_max"`
	NodesMean   float64      `json:"nodes_mean"`
	Bytes       int64        `json:"bytes"`      // the loaded hierarchy in memory
	FileBytes   int64        `json:"file_bytes"` // the store file
	BudgetBytes int64        `json:"budget_bytes"`
	Cap         compress.Cap `json:"cap"`
	// Allocation: a global allocation's record (pvsbake allocate), absent
	// when every PVS was capped alike.
	Allocation *compress.Allocation `json:"allocation,omitempty"`
	// Encoding is the store's tree encoding: compress.Encoding (flat) or
	// compress.EncodingCoded (pvsbake code), CacheBytes a coded store's
	// cache of decoded PVSs, BitsPerCode the file's tree bits per code
	// (CODE's words or CBLK's blocks).
	Encoding    string  `json:"encoding"`
	CacheBytes  int64   `json:"cache_bytes,omitempty"`
	CacheTrees  int     `json:"cache_trees,omitempty"` // a version 4 coded store's
	BitsPerCode float64 `json:"bits_per_code"`
	CodesTotal  int64   `json:"codes_total"`
	CodesMean   float64 `json:"codes_mean"`
	// CodesByLevel is the mean codes per PVS at each quad level (0: the
	// cells), which shows how an allocation spread the budget.
	CodesByLevel []float64          `json:"codes_mean_by_level"`
	Shared       int                `json:"shared_subtrees"`
	Refs         int                `json:"references"`
	HiddenKept   float64            `json:"hidden_kept"`
	Width        int                `json:"width"`
	Height       int                `json:"height"`
	DxM          float64            `json:"dx_m"`
	DyM          float64            `json:"dy_m"`
	CRS          string             `json:"crs"`
	Source       string             `json:"source"` // the DEM it was baked from
	Window       [4]int             `json:"window"`
	Params       compress.VisParams `json:"params"`
	// PVSCellM is the side of a PVS cell in metres (params.pvs_cell
	// heightmap cells of dx_m/pvs_cell metres); Engine the game engine's
	// frame the store was baked in (--engine), with its origin and axes.
	PVSCellM    float64                `json:"pvs_cell_m"`
	Engine      *heightmap.EngineFrame `json:"engine,omitempty"`
	LoadSeconds float64                `json:"load_seconds"`
	LoadMBps    float64                `json:"load_mb_per_s"`
	// Codes is the code measurement of --codes.
	Codes *codeStat `json:"codes,omitempty"`
}

// codeStat measures a store's codes (quadpvs.CodeStats), in bits per
// code: as loaded (codes, rank samples, word padding; a coded store's
// Bytes), in the file's CODE section (a coded store's CBLK), and the empirical entropy with no context, given the node's
// depth, and given its depth and previous sibling; RedundantFraction is
// the share of codes inside Hidden leaves of their parent quad's tree, and
// EntropyGivenParent what the others need given also the parent quad's
// code at the same node, per code of today's trees (the top quad has no
// parent).
type codeStat struct {
	BitsMemory         float64 `json:"bits_memory"`
	BitsFile           float64 `json:"bits_file"`
	Entropy            float64 `json:"entropy"`
	EntropyDepth       float64 `json:"entropy_depth"`
	EntropySibling     float64 `json:"entropy_depth_sibling"`
	RedundantFraction  float64 `json:"redundant_fraction"`
	EntropyGivenParent float64 `json:"entropy_given_parent"`
	BitsConditional    float64 `json:"bits_parent_conditional"`
}

// measureCodes tallies every tree of an unshared hierarchy, and each
// quad's tree against its parent quad's, then codes them all with a
// CondCoder built from those tallies.
func measureCodes(h *quadpvs.Hierarchy) (*codeStat, error) {
	var (
		cs   quadpvs.CodeStats
		cond [quadtree.CondContexts][256]uint32
	)
	_ = h.EachWithParent(func(_ int, t, p *quadpvs.Tree) error {
		cs.Add(t)
		cs.AddConditional(t, p)
		quadtree.CondHistogram(&cond, t, p)
		return nil
	})
	cc := quadtree.NewCondCoder(&cond)
	var cb []byte
	csize := 0
	if err := h.EachWithParent(func(_ int, t, p *quadpvs.Tree) error {
		var err error
		if cb, err = cc.Append(cb[:0], t, p); err != nil {
			return err
		}
		csize += len(cb)
		return nil
	}); err != nil {
		return nil, err
	}
	h0, hd, hs := cs.Entropy()
	n := float64(cs.Codes)
	memory := h.Bytes()
	return &codeStat{BitsMemory: round(8*float64(memory)/n, 3), BitsFile: round(8*float64(h.StoredBytes())/n, 3),
		Entropy: round(h0, 3), EntropyDepth: round(hd, 3), EntropySibling: round(hs, 3), RedundantFraction: round(float64(cs.Redundant)/n, 4),
		EntropyGivenParent: round(cs.ConditionalEntropy(), 3), BitsConditional: round(8*float64(csize)/n, 3)}, nil
}

func statCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "stat STORE", Short: "Print a store's size, nodes, budget and parameters as JSON", Args: cli.Args("STORE")}
	c.Example = `  pvsbake stat mw.pvs
  pvsbake stat mw.pvs --codes`
	c.Flags().Bool("json", true, "print JSON (always; accepted like every command's --json)")
	codes := c.Flags().Bool("codes", false, "also measure the codes: bits per code as stored, their entropy by context, the share inside hidden leaves of the parent quad's PVS, and the bits of two coders of sibling groups: Huffman, and rANS given the parent quad's PVS (reads every tree)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		start := time.Now()
		s, err := compress.Open(pos[0])
		if err != nil {
			return err
		}
		el := time.Since(start).Seconds()
		fi, err := os.Stat(pos[0])
		if err != nil {
			return err
		}
		flat := quadtree.FlatOf(s.Hierarchy)
		out := storeStat{
			Points: s.Width * s.Height, Quads: s.Hierarchy.Quads(), NodesTotal: s.NodesTotal, NodesMax: s.NodesMax,
			NodesMean: round(float64(s.NodesTotal)/float64(s.Hierarchy.Quads()), 2),
			Bytes:     int64(s.Hierarchy.Bytes()), FileBytes: fi.Size(), BudgetBytes: s.BudgetBytes, Cap: s.Cap,
			Allocation: s.Allocation, CodesTotal: s.CodesTotal, CodesMean: round(float64(s.CodesTotal)/float64(s.Hierarchy.Quads()), 2),
			Shared: flat.Shared, Refs: len(flat.Refs),
			Encoding: s.Encoding, CacheBytes: s.CacheBytes, CacheTrees: s.CacheTrees, BitsPerCode: round(8*float64(s.Hierarchy.StoredBytes())/float64(max(1, s.CodesTotal)), 3),
			HiddenKept: round(s.HiddenKept, 4), Width: s.Width, Height: s.Height, DxM: s.DxM, DyM: s.DyM, CRS: s.CRSName,
			Path: pos[0], Source: s.Source, Window: s.Window, Params: s.Params, PVSCellM: s.DxM, Engine: s.Engine,
			LoadSeconds: round(el, 4), LoadMBps: round(float64(fi.Size())/1e6/el, 1),
		}
		for l := range s.Hierarchy.G.Levels() {
			if flat.Len == nil {
				break // coded: the counts are in the blocks
			}
			lo, hi := s.Hierarchy.LevelStart[l], s.Hierarchy.LevelStart[l+1]
			var n int64
			for _, c := range flat.Len[lo:hi] {
				n += int64(c)
			}
			out.CodesByLevel = append(out.CodesByLevel, round(float64(n)/float64(hi-lo), 1))
		}
		if *codes {
			if flat.Shared > 0 {
				return fmt.Errorf("%s: --codes measures unshared stores; this one has %d shared subtrees", pos[0], flat.Shared)
			}
			if out.Codes, err = measureCodes(s.Hierarchy); err != nil {
				return fmt.Errorf("%s: %w", pos[0], err)
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return c
}
