package bake

import (
	"fmt"
	"os"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// headerFor describes a store of dem baked with p under o's cap.
func headerFor(dem *heightmap.Grid, p horizon.Params, o Output) compress.Header {
	h := compress.Header{
		Width: dem.Width, Height: dem.Height, DxM: dem.Dx, DyM: dem.Dy,
		GeoTransform: dem.GeoTransform, HasGeoTransform: dem.HasGeoTransform, CRS: dem.CRS, CRSName: dem.CRSName,
		Source: dem.Source, Window: [4]int{dem.Window.Col, dem.Window.Row, dem.Window.Width, dem.Window.Height},
		ZScale: dem.ZScale, Params: compress.FromHorizon(p), BudgetBytes: o.Budget, Cap: o.Cap,
	}
	l := dem.Loaded
	lf := compress.LoadFlags{CellSizeM: l.CellSize, ZScale: l.ZScale, ZOffsetM: l.ZOffset, HeightRangeM: l.HeightRange,
		RawSize: [2]int{l.RawWidth, l.RawHeight}, RawBigEndian: l.RawBigEndian, Band: l.Band}
	if lf != (compress.LoadFlags{}) {
		h.Load = &lf
	}
	h.LonLat, h.Engine = dem.LonLat, dem.Engine
	return h
}

// sink receives the capped trees of every finished quad, one per output,
// in the order the bake finishes them, with the uncapped root of a shard's
// subtree (nil otherwise); commit finishes its files with the outputs'
// tallies and renames them into place, abort removes them.
type sink interface {
	add(r *capped, root *quadpvs.Tree) error
	commit(tally []compress.Tally) ([]compress.Stats, error)
	abort()
}

// stores is the sink of a whole bake: one store per output, flat or coded.
type stores []store

// store is one output's file: a flat store (output) or a coded one
// (codedOutput).
type store struct {
	flat  *output
	coded *codedOutput
}

func (s store) temp() *atomicfile.Temp {
	if s.coded != nil {
		return s.coded.t
	}
	return s.flat.t
}

// path is the store's final path.
func (s store) path() string {
	if s.coded != nil {
		return s.coded.path
	}
	return s.flat.t.Path
}

// createStores starts every output's store: flat or coded, beside its
// path, or, in a resumable coded bake (ck not nil), in ck's folder.
func createStores(outputs []Output, prices []*pricing, dem *heightmap.Grid, p horizon.Params, g quadpvs.Geometry, ck *checkpointer) (stores, error) {
	var s stores
	for i, oc := range outputs {
		var st store
		var err error
		if prices[i] != nil {
			st.coded, err = createCoded(oc, headerFor(dem, p, oc), prices[i], g, dem, ck, i)
		} else {
			st.flat, err = createOutput(oc.Path, headerFor(dem, p, oc), g.QuadCount(), dem.Elev, dem.Nodata)
		}
		if err != nil {
			s.abort()
			return nil, err
		}
		s = append(s, st)
	}
	return s, nil
}

func (s stores) add(r *capped, _ *quadpvs.Tree) error {
	for i, o := range s {
		var err error
		if o.coded != nil {
			o.coded.p.reach(r.job)
			err = o.coded.add(r.q, r.out[i], r.step[i])
		} else {
			err = o.flat.w.Add(r.q, r.out[i])
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", o.path(), err)
		}
	}
	return nil
}

// commit finishes every store, then makes them their final files all or
// none (atomicfile.CommitAll). It returns the statistics written.
func (s stores) commit(tally []compress.Tally) ([]compress.Stats, error) {
	temps := make([]*atomicfile.Temp, len(s))
	stats := make([]compress.Stats, len(s))
	for i, o := range s {
		var err error
		if o.coded != nil {
			stats[i], err = o.coded.finish(tally[i])
		} else {
			stats[i] = tally[i].Stats()
			err = o.flat.w.Close(stats[i])
		}
		o.dropSpill() // the index is in the store now
		if err == nil && o.coded != nil && o.coded.t == nil {
			err = o.coded.publish()
		}
		if err != nil {
			s.abort()
			return nil, fmt.Errorf("write %s: %w", o.path(), err)
		}
		temps[i] = o.temp()
	}
	return stats, atomicfile.CommitAll(temps)
}

// abort removes the stores' temporary files; a resumable coded bake's
// stores stay in its folder, for the next run.
func (s stores) abort() {
	for _, o := range s {
		o.dropSpill()
		if o.coded != nil && o.coded.t == nil {
			o.coded.f.Close()
			o.coded.addsFile.Close()
			continue
		}
		o.temp().Abort()
	}
}

// output is one store being written to its temporary file.
type output struct {
	t   *atomicfile.Temp
	w   *compress.Writer
	idx *os.File // the writer's index until Close (indexSpill)
}

// dropSpill removes the temporary file of the store's index, if any.
func (s store) dropSpill() {
	var sp **os.File
	if s.coded != nil {
		sp = &s.coded.idx
	} else {
		sp = &s.flat.idx
	}
	if *sp != nil {
		(*sp).Close()
		os.Remove((*sp).Name())
		*sp = nil
	}
}

// indexSpill creates (or empties) the file file+".index", in which a
// store's writer keeps its per-quad index until Close
// (compress.IndexSpill), so that a bake's memory does not grow with its
// outputs: 8 bytes per quad for a coded store, 16 for a flat one, 180 and
// 360 MB per output on a 4097² map. file is the store's temporary file,
// whose sidecar it is (atomicfile.Temp.Sidecar: removed with it when a
// killed bake's leftovers are swept), or a resumable bake's store in its
// folder. The commit removes it. It is opened without following a
// symbolic link and only as a regular file (atomicfile.OpenRegular): a
// link, pipe or folder planted at that name in a resumable bake's folder
// is refused, left as it was, and nothing else is truncated.
func indexSpill(file string) (*os.File, error) {
	return atomicfile.OpenRegular(file+".index", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
}

func createOutput(path string, h compress.Header, quads int, elev []float32, nodata []bool) (*output, error) {
	t, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	o := &output{t: t}
	if o.w, err = compress.NewWriter(t, h, quads, elev, nodata); err != nil {
		t.Abort()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if o.idx, err = indexSpill(t.Name()); err == nil {
		err = o.w.SetIndexSpill(o.idx)
	}
	if err != nil {
		t.Abort()
		store{flat: o}.dropSpill()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return o, nil
}
