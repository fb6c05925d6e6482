// Package quadpvs stores potentially visible sets (PVS) as Wilson predictive
// quadtrees (thesis §3.2), merges them losslessly or lossily (§3.3), caps
// them to node budgets (§3.4), and builds and queries the hierarchical PVS
// of a terrain's quad decomposition (§3.2, Figure 3.3).
//
// # Geometry
//
// A PVS covers a Width×Height terrain padded to the square of side 2^K
// (K = ceil(log2(max(Width, Height)))). The root (depth 0) is that square;
// a node at depth d is a quad of side 2^(K-d) cells. Its four children are
// ordered by Morton code: 0 north-west, 1 north-east, 2 south-west, 3
// south-east (child index = 2·(row bit) + column bit).
//
// # Node encoding
//
// Each node is a 2-bit code: Hidden, Visible, Unknown (the node has four
// children) or Outside (the quad lies wholly outside the terrain: it is not
// a node of the PVS, is never counted, and cannot change). Leaf codes say
// every terrain cell of the quad is hidden (or visible); cells of the padding
// are don't-cares, so a quad straddling the terrain's edge collapses as soon
// as its terrain cells agree.
//
// Codes are stored in breadth-first order, 32 per uint64 (code i in bits
// 2·(i mod 32) of word i/32), with the root at 0; every Unknown node has four
// child slots, so the children of the Unknown node of rank r (r Unknown nodes
// come before it) are at 4r+1 … 4r+4. A rank sample per 64 codes (uint32)
// makes that O(1). In memory a tree costs 2.5 bits per code; Tree.Bytes
// reports it.
//
// # Implementation
//
// The types are implemented in an internal package, which also holds the
// forms a store keeps trees in (records read in place, blocks coded given
// the parent quad's tree) for package compress and the bake; this package
// names what a program needs to build, merge, cap and query PVSs. Their
// methods are documented there (go doc ./internal/quadtree). A store
// (compress.Open) hands out a *Hierarchy; its trees are read through
// Hierarchy.PVS.
package quadpvs

import "github.com/frontiersets/frontiersets/internal/quadtree"

// Status is a node's code: Hidden, Visible, Unknown or Outside.
type Status = quadtree.Status

// Node codes.
const (
	Hidden  = quadtree.Hidden  // every terrain cell of the quad is hidden
	Visible = quadtree.Visible // every terrain cell of the quad is visible
	Unknown = quadtree.Unknown // mixed: see the four children
	Outside = quadtree.Outside // the quad lies outside the terrain (not a node)
)

// Tree is one PVS as a predictive quadtree (the layout above). The zero
// Tree is empty (no root) and only valid as a destination. A Tree is
// immutable once built and safe for concurrent readers. Its methods answer
// a cell's or a quad's status (CellStatus, QuadStatus), count nodes and
// codes (Nodes, Len, Bytes) and return its code words (Codes).
type Tree = quadtree.Tree

// Geometry is the quadtree geometry of a Width×Height terrain (cells): the
// square of side 2^K cells that covers it. A quad of level l has side 2^l
// cells and depth K−l; Levels, QuadsAcross and QuadCount count them.
type Geometry = quadtree.Geometry

// NewGeometry returns the geometry of a width×height terrain, 1 to 32768
// cells on a side; an error otherwise.
func NewGeometry(width, height int) (Geometry, error) { return quadtree.NewGeometry(width, height) }

// MortonCode interleaves the bits of col and row (col's at the even
// positions), so that the quad of level l at (x,y) holds exactly the cells
// whose codes lie in [MortonCode(x<<l, y<<l), +4^l). col and row must lie in
// 0…2^32−1.
func MortonCode(col, row int) uint64 { return quadtree.MortonCode(col, row) }

// Layout numbers a hierarchy's quads level by level, row-major within a
// level: quad (l,x,y) has index LevelStart[l] + y·cols(l) + x, with cols(l)
// from Geometry.QuadsAcross (§3.2).
type Layout = quadtree.Layout

// Hierarchy is a terrain's hierarchical PVS (§3.2, Figure 3.3): one tree
// for every quad of every level that intersects the terrain, indexed as
// Layout says (level 0: the cells). Hierarchy.PVS returns quad q's tree,
// QuadStatusIn one quad's status in many trees at once; a hierarchy read
// from a store may be read in place or decoded on demand, and Err reports
// the first of its trees that failed its checks. Read-only once built and
// safe for concurrent readers.
type Hierarchy = quadtree.Hierarchy

// NewHierarchy returns an empty hierarchy of geometry g, to fill with
// Hierarchy.Set, every quad once, in any order.
func NewHierarchy(g Geometry) *Hierarchy { return quadtree.NewHierarchy(g) }

// Emit receives the finished, canonical PVS of quad (l,x,y) from a
// HierarchyBuilder; it must not retain t, which the builder reuses.
type Emit = quadtree.Emit

// HierarchyBuilder builds a hierarchical PVS from per-point PVS trees
// streamed in Morton order (Order), holding one partial union per level;
// quads are emitted in post-order. Not safe for concurrent use.
type HierarchyBuilder = quadtree.HierarchyBuilder

// NewHierarchyBuilder returns a builder of g's hierarchy that hands every
// quad's PVS to emit.
func NewHierarchyBuilder(g Geometry, emit Emit) *HierarchyBuilder {
	return quadtree.NewHierarchyBuilder(g, emit)
}

// BlockPoints is how many points (cells) a block of HierarchyBuilder.AddBlock
// holds: the level-2 quad of 4×4 cells.
const BlockPoints = quadtree.BlockPoints

// Encoder turns per-point visibility bitmaps into predictive quadtrees
// (§3.2); one per goroutine, not safe for concurrent use.
type Encoder = quadtree.Encoder

// NewEncoder returns an Encoder for trees of geometry g.
func NewEncoder(g Geometry) *Encoder { return quadtree.NewEncoder(g) }

// Mode selects the merge of §3.3: Lossless or Lossy.
type Mode = quadtree.Mode

// Merge modes (§3.3).
const (
	Lossless = quadtree.Lossless // the exact union
	Lossy    = quadtree.Lossy    // smaller: a node Unknown in one tree and Hidden in the other becomes Visible (conservative)
)

// Merger merges trees (§3.3) with reusable scratch; one per goroutine.
type Merger = quadtree.Merger

// Union answers quad statuses of the lossless union of many trees without
// building it (§3.3); the zero Union needs Reset. Not safe for concurrent
// use.
type Union = quadtree.Union

// Normalizer collapses trees into canonical form (no Unknown node whose
// terrain children agree); not safe for concurrent use.
type Normalizer = quadtree.Normalizer

// Walker visits a tree's leaves breadth-first with each node's quad
// (Leaves, Bitmap, VisibleCells, HiddenCells); not safe for concurrent use.
type Walker = quadtree.Walker

// Capper caps trees to a node or code budget (§3.4) by turning hidden
// leaves visible, so that the result is conservative; not safe for
// concurrent use.
type Capper = quadtree.Capper

// ShareOptions tunes Hierarchy.Share, which stores repeated subtrees once.
type ShareOptions = quadtree.ShareOptions

// ShareStats says what Hierarchy.Share did.
type ShareStats = quadtree.ShareStats

// CodeStats measures trees' codes: their counts and empirical entropies
// with and without context (bits per code).
type CodeStats = quadtree.CodeStats

// Bounds of a coded hierarchy's cache of decoded trees (Hierarchy.Code),
// in bytes.
const (
	MinCacheBytes = quadtree.MinCacheBytes
	MaxCacheBytes = quadtree.MaxCacheBytes
)

// FormatError reports a malformed encoded tree, at a byte offset.
type FormatError = quadtree.FormatError

// TreeError reports a stored tree that failed its checks when first read:
// its quad, the region of the store (RegionIndex, RegionCodes,
// RegionBlocks) and the byte offset in it.
type TreeError = quadtree.TreeError

// Regions of stored trees, for TreeError.
const (
	RegionIndex  = quadtree.RegionIndex  // the per-tree index: tree q's entry
	RegionCodes  = quadtree.RegionCodes  // a flat hierarchy's code words and rank samples
	RegionBlocks = quadtree.RegionBlocks // a coded hierarchy's blocks
)
