// Package compress caps a hierarchical PVS to a memory budget (thesis §3.4)
// and reads and writes the binary PVS store (FORMAT.md in this folder).
//
// A budget is bytes for the whole store in memory. The thesis derives one cap
// N on the nodes of every PVS from it, at 3 bytes per node (Table 4.5: 0.1 GB
// over 133,773 quads → N = 267). This package derives the same kind of
// uniform cap for the project's own encoding (quadpvs: 0.3125 bytes per code
// plus 24 bytes per quad), on codes so that the store provably fits, and also
// offers the thesis's node cap directly (Cap.Nodes). Allocate spends one
// budget across all PVSs; WriteCoded writes a coded store, whose trees are
// entropy-coded given their parent quad's (quadpvs.Hierarchy.Code) and
// decoded when read.
package compress

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// QuadOverhead is the memory per quad of a loaded hierarchy besides its
// codes: two 8-byte starts and two 4-byte counts (quadpvs.Hierarchy).
const QuadOverhead = 24

// ThesisBytesPerNode is the thesis's node size: a status byte and a 2-byte
// child index (§4.4, Table 4.5).
const ThesisBytesPerNode = 3

// ErrBudget is returned when a budget cannot give every PVS one node.
var ErrBudget = errors.New("compress: budget below one node per PVS")

// Cap is the cap applied to every PVS of a hierarchy: at most Codes codes
// (the project's byte accounting) or at most Nodes nodes (the thesis's
// accounting); zero means no cap of that kind. MinLoss collapses the
// groups that lose the fewest hidden cells first (quadpvs.Capper.MinLoss)
// instead of §3.4's deepest-first order.
type Cap struct {
	Codes   int  `json:"codes"`
	Nodes   int  `json:"nodes"`
	MinLoss bool `json:"min_loss,omitempty"`
}

// Apply writes t capped into dst with c's scratch (its policy set from
// cp.MinLoss, g the trees' geometry); it returns t itself when no cap
// binds, else dst.
func (cp Cap) Apply(c *quadpvs.Capper, g quadpvs.Geometry, dst, t *quadpvs.Tree) *quadpvs.Tree {
	c.MinLoss, c.G = cp.MinLoss, g
	switch {
	case cp.Codes > 0 && t.Len() > cp.Codes:
		c.CapCodes(dst, t, cp.Codes)
		return dst
	case cp.Nodes > 0 && t.Nodes() > cp.Nodes:
		c.Cap(dst, t, cp.Nodes)
		return dst
	}
	return t
}

// CapForBudget returns the largest uniform code cap C such that quads trees
// of at most C codes take at most budget bytes in memory:
// quads · (QuadOverhead + quadtree.BytesFor(C)) ≤ budget. The error wraps
// ErrBudget and names the smallest budget that works.
func CapForBudget(budget int64, quads int) (Cap, error) {
	min := int64(quads) * int64(QuadOverhead+quadtree.BytesFor(1))
	if budget < min {
		return Cap{}, fmt.Errorf("%w: %s for %d quads; the minimum is %s", ErrBudget, FormatBytes(budget), quads, FormatBytes(min))
	}
	per := budget/int64(quads) - QuadOverhead // bytes for one tree's codes and ranks
	// BytesFor(c) = 8⌈c/32⌉ + 4⌈c/64⌉ = 20 bytes per 64 codes.
	c := per / 20 * 64
	for quadtree.BytesFor(int(c+32)) <= int(per) {
		c += 32
	}
	if c > math.MaxInt32 {
		c = math.MaxInt32
	}
	return Cap{Codes: int(max(c, 1))}, nil
}

// ThesisNodeCap returns the thesis's node cap for a budget: budget / (quads ·
// 3 bytes), as in Table 4.5 (which reads GB as 2^30 bytes: 0.1 GiB over
// 133,773 quads gives 267).
func ThesisNodeCap(budget int64, quads int) (Cap, error) {
	n := budget / (int64(quads) * ThesisBytesPerNode)
	if n < 1 {
		return Cap{}, fmt.Errorf("%w: %s for %d quads at 3 bytes per node; the minimum is %s",
			ErrBudget, FormatBytes(budget), quads, FormatBytes(int64(quads)*ThesisBytesPerNode))
	}
	return Cap{Nodes: int(min(n, math.MaxInt32))}, nil
}

var units = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"b", 1},
}

// ParseBytes parses a size such as "100MB", "0.25GB", "512KiB" or "1e6B":
// KB, MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB powers of 1024, B
// bytes, case-insensitive. A bare number is refused: "--budget 10" meant
// as 10 GB would otherwise ask for 10 bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 0.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil && mult == 0 {
		return 0, fmt.Errorf("compress: size %q has no unit: give one, e.g. %sMB or %sGiB", s, t, t)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("compress: size %q: want a positive number with an optional unit (KB, MB, GB, KiB, MiB, GiB)", s)
	}
	return int64(v * mult), nil
}

// ParseBytesList parses a comma-separated list of sizes (ParseBytes).
func ParseBytesList(s string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		v, err := ParseBytes(part)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// FormatBytes formats n bytes for people: "1.50 GB", "267 kB", "12 B".
func FormatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// DefaultCacheBytes is the cache of decoded trees a coded store of about
// b bytes gets unless told otherwise: a 32nd of b, from 64 KiB to
// 256 MiB.
func DefaultCacheBytes(b int64) int64 {
	return min(max(b/32, quadpvs.MinCacheBytes), 256<<20)
}

// CodedCeiling is the ceiling, in codes, of the trees of a coded store of
// budget bytes for quads quads (pvsbake bake --encoding coded): 8 times the
// mean a budget holds at 16 codes per byte (0.5 bits per code, what the
// conditional coder spends on real stores), at least 64 codes, and at most
// CodedMaxCodes.
func CodedCeiling(budget int64, quads int) int {
	return int(min(max(8*16*budget/int64(max(quads, 1)), 64), CodedMaxCodes))
}

// CodedMaxCodes bounds the trees of a coded store whatever its budget: a
// lossless query decodes every tree it reads that is not cached, so its
// time follows the largest trees. On the urban benchmark window at 0.1 GiB,
// 8 times the mean alone allowed 41,216 codes and lossless queries took
// 2.65 ms on average; at 6,144 they take 1.8 ms, for 0.5% of the hidden
// cells (bench/results/2026-11-27-7/coded-ceiling). Game-size stores
// (4097² at 0.5–1 GiB, whose 8 × mean is 3,069–6,139) are below it.
const CodedMaxCodes = 6144

// CodedLeast is the smallest budget a coded store of quads quads can have
// with a cache sized from budget (DefaultCacheBytes): its block index (8
// bytes per quad), a byte of block per quad, the coder's tables and the
// cache.
func CodedLeast(budget int64, quads int) int64 {
	return 9*int64(quads) + quadtree.CondCoderBytes + DefaultCacheBytes(budget)
}
