package bake

import (
	"errors"
	"fmt"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// WriteStore writes the hierarchy h with s's grid and header hd to path,
// through a temporary file renamed on success.
func WriteStore(path string, hd compress.Header, h *quadpvs.Hierarchy, s *compress.Store, st compress.Stats) error {
	return writeStoreFile(path, func(t *atomicfile.Temp) error {
		w, err := compress.NewWriter(t, hd, h.Quads(), s.Elev, s.Nodata)
		if err == nil {
			err = w.AddHierarchy(h)
		}
		if err == nil {
			err = w.Close(st)
		}
		return err
	})
}

// WriteCodedStore writes the coded hierarchy h (quadpvs.Hierarchy.Code)
// with s's grid and header hd to path as a coded store
// (compress.WriteCoded), through a temporary file renamed on success.
func WriteCodedStore(path string, hd compress.Header, h *quadpvs.Hierarchy, s *compress.Store, st compress.Stats) error {
	return writeStoreFile(path, func(t *atomicfile.Temp) error {
		return compress.WriteCoded(t, hd, h, s.Elev, s.Nodata, st)
	})
}

// writeStoreFile runs write on a temporary file for path and commits it,
// or removes it when write fails.
func writeStoreFile(path string, write func(t *atomicfile.Temp) error) error {
	t, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := write(t); err != nil {
		t.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.CommitAll([]*atomicfile.Temp{t})
}

// RecappedStats are the statistics of the store h re-capped from s (by
// pvsbake share or allocate), its memory the loaded hierarchy's
// (Hierarchy.Bytes), whatever the cap's accounting, as a bake's. Hidden
// cells kept compose: s's kept fraction times what h keeps of s's trees,
// over every 16th quad (the bake's sample).
func RecappedStats(s *compress.Store, h *quadpvs.Hierarchy) compress.Stats {
	st := compress.Stats{Quads: h.Quads(), MemoryBytes: int64(h.Bytes())}
	var w quadpvs.Walker
	var before, after int64
	for q := range h.Quads() {
		t := h.PVS(q)
		st.NodesTotal += int64(t.Nodes())
		st.NodesMax = max(st.NodesMax, t.Nodes())
		if q%16 == 0 {
			in := s.Hierarchy.PVS(q)
			before += int64(w.HiddenCells(h.G, &in))
			after += int64(w.HiddenCells(h.G, &t))
			st.HiddenQuads++
		}
	}
	for _, n := range h.Len {
		st.CodesTotal += int64(n)
	}
	st.HiddenKept = s.HiddenKept
	if before > 0 {
		st.HiddenKept *= float64(after) / float64(before)
	}
	return st
}

// AllocateStore re-caps store s (read from a bake) to budget bytes by
// global allocation (compress.Allocate) in the store's own accounting —
// the thesis's 3 bytes per node when its cap counts nodes, opt.Thesis being
// set from it — and writes it to path, with the allocation in its header.
// It returns the statistics written (their memory the loaded hierarchy's,
// RecappedStats). Errors: a store with shared subtrees or an allocation
// already, Allocate's, writing's.
func AllocateStore(s *compress.Store, path string, budget int64, opt compress.AllocateOptions) (compress.Stats, compress.Allocation, error) {
	if s.Header.Shared > 0 || s.Header.Allocation != nil {
		return compress.Stats{}, compress.Allocation{}, errors.New("bake: a store with shared subtrees or an allocation already: allocate a store straight from a bake")
	}
	opt.Thesis = s.Cap.Nodes > 0
	h, a, err := compress.Allocate(s.Hierarchy, s.Cap, budget, opt)
	if err != nil {
		return compress.Stats{}, compress.Allocation{}, err
	}
	cp := compress.Cap{Codes: a.CeilingCodes, Nodes: a.CeilingNodes, MinLoss: true}
	st := RecappedStats(s, h)
	hd := s.Header
	hd.BudgetBytes, hd.Cap, hd.Allocation = budget, cp, &a
	return st, a, WriteStore(path, hd, h, s, st)
}

// AllocateCoded re-caps store s (read from a min-loss bake at a larger
// budget) by global allocation (compress.Allocate) to the largest flat
// budget whose coded store (quadpvs.Hierarchy.Code with cacheBytes
// of decoded trees) fits budget bytes in memory, and writes that coded store
// to path. The coded size of an allocation is measured, not predicted:
// each trial allocates at a flat budget, codes the result and scales the
// next flat budget by budget ÷ the coded size (then along the line
// through the last two trials), within the trials that fitted and those
// that did not, for at most 10 trials or until a trial fills 98.5% of the
// budget; it keeps the coded store of the best trial so far, not its flat
// trees. progress, when not nil, hears every trial
// (flat and coded bytes). It returns the statistics written (memory: the
// coded store's Bytes), the allocation and its flat budget. Errors: those
// of AllocateStore, ErrBudget when even the smallest trial does not fit.
func AllocateCoded(s *compress.Store, path string, budget int64, opt compress.AllocateOptions, cacheBytes int64,
	progress func(flat, coded int64, fits bool)) (compress.Stats, compress.Allocation, int64, error) {
	if s.Header.Shared > 0 || s.Header.Allocation != nil || s.Hierarchy.Coding() != nil || s.Cap.Nodes > 0 {
		return compress.Stats{}, compress.Allocation{}, 0, errors.New("bake: coding allocates a flat store capped in codes, straight from a bake")
	}
	input := int64(s.Hierarchy.Bytes())
	type trial struct {
		flat int64
		h    *quadpvs.Hierarchy // coded
		st   compress.Stats     // of the allocation, whose flat trees are not kept
		a    compress.Allocation
	}
	var best *trial                // the largest flat budget that fitted
	over := input + 1              // the smallest flat budget that did not
	flat := min(input, 9*budget/2) // coded stores take about a fifth of flat ones
	var prevFlat, prevSize int64
	for range 10 {
		h, a, err := compress.Allocate(s.Hierarchy, s.Cap, flat, opt)
		if err != nil {
			if errors.Is(err, compress.ErrBudget) && best != nil {
				break
			}
			return compress.Stats{}, compress.Allocation{}, 0, err
		}
		ch, err := h.Code(cacheBytes)
		if err != nil {
			return compress.Stats{}, compress.Allocation{}, 0, err
		}
		size := int64(ch.Bytes())
		fits := size <= budget
		if progress != nil {
			progress(flat, size, fits)
		}
		if fits {
			best = &trial{flat, ch, RecappedStats(s, h), a}
			if size >= budget*985/1000 || flat >= input {
				break
			}
		} else {
			over = flat
		}
		lo := int64(0)
		if best != nil {
			lo = best.flat
		}
		// The next flat budget: in proportion at first, then along the
		// line through the last two trials (the coder's tables and the
		// decoded upper levels make a fixed part that proportion ignores).
		next := int64(float64(flat) * float64(budget) / float64(size) * 0.995)
		if prevFlat > 0 && size != prevSize {
			next = flat + int64(float64(budget*995/1000-size)*float64(flat-prevFlat)/float64(size-prevSize))
		}
		prevFlat, prevSize = flat, size
		if next <= lo || next >= over {
			next = lo + (over-lo)/2
		}
		if next <= lo || next >= over || next == flat {
			break
		}
		flat = next
	}
	if best == nil {
		return compress.Stats{}, compress.Allocation{}, 0, fmt.Errorf("%w: no allocation of the input (%s flat) codes into %s", compress.ErrBudget, compress.FormatBytes(input), compress.FormatBytes(budget))
	}
	st := best.st
	st.MemoryBytes = int64(best.h.Bytes())
	hd := s.Header
	hd.BudgetBytes, hd.Cap, hd.Allocation = budget, compress.Cap{Codes: best.a.CeilingCodes, MinLoss: true}, &best.a
	return st, best.a, best.flat, WriteCodedStore(path, hd, best.h, s, st)
}
