package main

import (
	"fmt"
	"hash/maphash"
	"io"

	"frontiersets/compress"
	"frontiersets/internal/bake"
	"frontiersets/internal/cli"
	"frontiersets/quadpvs"
)

// runShareBench measures what storing identical subtrees once would save
// (issue "more hidden cells per byte", item 2) before any format change:
// go run ./bench share [--min-codes 48] [--ref-codes 32] STORE...
func runShareBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("share", "bench share [--min-codes 48] [--ref-codes 32] STORE...", stderr)
	minCodes := fs.Int("min-codes", 48, "share subtrees of at least this many `codes`")
	refCodes := fs.Int("ref-codes", 32, "what a reference costs, in two-bit `codes` (32: 8 bytes, a node index and an offset)")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || *minCodes < 2 || *refCodes < 0 {
		fs.Usage()
		return cli.Usagef("share takes stores, --min-codes ≥ 2 and --ref-codes ≥ 0")
	}
	fmt.Fprintln(stdout, "| store | trees | codes | min codes | ref codes | codes saved | of the codes | of the store's bytes | distinct subtrees kept |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|")
	for _, p := range pos {
		s, err := bake.OpenStore(p)
		if err != nil {
			return err
		}
		r := shareEstimate(s.Hierarchy, *minCodes, *refCodes)
		// Codes and their rank samples scale together (quadpvs.BytesFor:
		// 20 bytes per 64 codes); the per-quad overhead does not.
		bytes := float64(s.Hierarchy.Bytes())
		savedBytes := float64(r.saved) * 20 / 64
		fmt.Fprintf(stdout, "| %s | %d | %d | %d | %d | %d | %.1f%% | %.1f%% (%s) | %d |\n", p, s.Hierarchy.Quads(), r.codes,
			*minCodes, *refCodes, r.saved, 100*float64(r.saved)/float64(r.codes), 100*savedBytes/bytes,
			compress.FormatBytes(int64(savedBytes)), r.distinct)
	}
	return nil
}

// shareResult is what shareEstimate finds.
type shareResult struct {
	codes, saved int64 // codes in all trees; codes sharing would save
	distinct     int   // distinct subtrees of at least the minimum kept
}

// shareEstimate walks every tree of h in quad index order, each top-down
// (breadth-first codes, the children of the r-th Unknown code at 4r+1…
// 4r+4): a subtree of at least minCodes codes equal to one seen before
// (anywhere earlier) would become a reference costing refCodes codes, and
// its descendants are not looked at; other subtrees are remembered and
// descended into. Subtrees are identified by a hash of their shape and
// statuses, bottom-up.
func shareEstimate(h *quadpvs.Hierarchy, minCodes, refCodes int) shareResult {
	seed := maphash.MakeSeed()
	seen := map[[2]uint64]struct{}{}
	var r shareResult
	var st []uint8
	var base, size []int32
	var sum []uint64
	var stack []int32
	for q := range h.Quads() {
		t := h.PVS(q)
		n, codes := t.Len(), t.Codes()
		st, base = st[:0], base[:0]
		rank := int32(0)
		for i := range n {
			c := uint8(codes[i>>5] >> (uint(i&31) * 2) & 3)
			st = append(st, c)
			b := int32(-1)
			if quadpvs.Status(c) == quadpvs.Unknown {
				b = 4*rank + 1
				rank++
			}
			base = append(base, b)
		}
		r.codes += int64(n)
		sum, size = append(sum[:0], make([]uint64, n)...), append(size[:0], make([]int32, n)...)
		var buf [33]byte
		for i := n - 1; i >= 0; i-- {
			if base[i] < 0 {
				sum[i], size[i] = uint64(st[i])+1, 1
				continue
			}
			buf[0], size[i] = st[i], 1
			for k := range int32(4) {
				c := base[i] + k
				for j := range 8 {
					buf[1+8*int(k)+j] = byte(sum[c] >> (8 * j))
				}
				size[i] += size[c]
			}
			sum[i] = maphash.Bytes(seed, buf[:])
		}
		stack = append(stack[:0], 0)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if base[i] < 0 || size[i] < int32(minCodes) {
				continue
			}
			key := [2]uint64{sum[i], uint64(size[i])}
			if _, ok := seen[key]; ok {
				r.saved += int64(size[i]) - int64(refCodes)
				continue
			}
			seen[key] = struct{}{}
			for k := range int32(4) {
				stack = append(stack, base[i]+k)
			}
		}
	}
	r.distinct = len(seen)
	return r
}
