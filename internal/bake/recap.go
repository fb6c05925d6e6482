package bake

import (
	"errors"
	"fmt"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/quadtree"
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
	for _, n := range quadtree.FlatOf(h).Len {
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
