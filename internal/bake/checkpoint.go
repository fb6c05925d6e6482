package bake

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/blockindex"
	"github.com/frontiersets/frontiersets/internal/quadtree"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// A resumable coded bake (Resume with coded outputs) is Run's one pipeline
// with checkpoints. It writes each store in the checkpoint folder, beside
// it the quads and block lengths in the order added (8 bytes per quad: the
// store's block index, which the checkpoint does not repeat). At the first
// job of every tile (PlanShards' shards, about pointsPerTile points each)
// the producer waits until the writer has written every quad of the jobs
// before; the writer then flushes and syncs the stores and their lists,
// and writes the folder's checkpoint file (atomically): the hierarchy
// builder's partial unions, the tallies, and per output its writer's state,
// its pricing's (the steps chosen and what was coded so far) and the
// capped trees waiting for their parent. Run again, the bake prices the budget from the
// same sample (baked again: it does not depend on the goroutines), checks
// that the checkpoint is this bake's, cuts each store back to the
// checkpoint's bytes and goes on from its job. Prices change only at fixed
// jobs, so the stores are byte for byte those of a bake without
// checkpoints (TestResumeCoded).

// checkpointName is the checkpoint file in a resumable coded bake's folder;
// the stores under way sit beside it as codedStoreName(i).
const checkpointName = "coded-bake.checkpoint"

func codedStoreName(i int) string { return fmt.Sprintf("coded-output-%d.pvs", i) }

// codedAddsName is the list of output i's blocks added: per block its quad
// and its length, uint32 little-endian each.
func codedAddsName(i int) string { return fmt.Sprintf("coded-output-%d.adds", i) }

// afterCheckpoint, when set (tests), is called once each checkpoint is
// written, with the job it resumes from.
var afterCheckpoint func(job int)

// checkpointVersion changes when checkpointState does (2: AddsCRC).
const checkpointVersion = 2

// castagnoli is CRC-32C's table, for the adds list's checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checkpointer is a resumable coded bake's: where it keeps its state, the
// bake it belongs to, and the jobs that start a tile.
type checkpointer struct {
	dir   string
	plan  Plan                // the tiles
	key   compress.PartHeader // the bake: DEM, plan, outputs (differ compares them)
	at    map[int]bool        // jobs that start a tile, the first excepted
	saved chan struct{}       // the writer's: the checkpoint is written, the producer goes on
	state *checkpointState    // to resume from; nil for a fresh start
	after func(job int)       // tests: called once a checkpoint is written
}

// checkpointState is what a checkpoint file holds (gob, zstd).
type checkpointState struct {
	Version  int
	Key      compress.PartHeader
	Job      int      // the first job not baked
	Done     int      // points baked
	Next     int      // quads the builder took
	Partials []ckTree // the builder's partial unions by level (N 0: none)
	Tally    []compress.Tally
	Outputs  []codedState
}

// ckTree is a tree's codes (quadpvs.Tree.Codes and Len).
type ckTree struct {
	Words []uint64
	N     int
}

func treeState(t *quadpvs.Tree) ckTree {
	if t == nil {
		return ckTree{}
	}
	return ckTree{Words: t.Codes(), N: t.Len()}
}

// tree rebuilds a tree of geometry g, checked (quadtree.FromCodes).
func (c ckTree) tree(g quadpvs.Geometry) (*quadpvs.Tree, error) {
	if c.N == 0 {
		return nil, nil
	}
	t := new(quadpvs.Tree)
	return t, quadtree.FromCodes(g, c.Words, c.N, t)
}

// codedState is one coded output's part of a checkpoint.
type codedState struct {
	Writer   compress.CodedWriterState // without its Index and Set: the adds list holds them
	Sched    []int32
	Done     []int
	Used     int64
	PredUsed float64
	Pinned   int64
	PinDone  int
	Steps    int64
	AddsCRC  uint32 // CRC-32C of the adds list's bytes
	MaxLen   int
	Pending  [][]ckPending // by level
}

type ckPending struct {
	Q    int
	Step int32
	T    ckTree
}

// newCheckpointer prepares a resumable coded bake of cfg in dir, cut into
// the tiles of plan: it reads dir's checkpoint when there is one and
// refuses it (ErrOtherBake) when it is another bake's.
func newCheckpointer(cfg Config, plan Plan, dir string) (*checkpointer, error) {
	key := plan.Header(cfg.DEM, cfg.Params, cfg.Outputs, 0, cfg.HiddenSample)
	key.Shard, key.First, key.Last, key.Points = 0, 0, 0, 0
	ck := &checkpointer{dir: dir, plan: plan, key: key, at: map[int]bool{}, saved: make(chan struct{}, 1), after: afterCheckpoint}
	f, err := atomicfile.OpenRegular(filepath.Join(dir, checkpointName), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return ck, nil
	} else if err != nil {
		return nil, fmt.Errorf("bake: checkpoint: %w; remove the folder to start again", err)
	}
	defer f.Close()
	// Decoded within bounds (a crafted checkpoint once took 5.3 GB): its
	// bytes at most a bake's state can take, and every gob message no
	// longer than the bytes left, so that gob allocates nothing more.
	g, err := quadpvs.NewGeometry(cfg.DEM.Width, cfg.DEM.Height)
	if err != nil {
		return nil, err
	}
	limit := checkpointLimit(g.QuadCount(), len(cfg.Outputs))
	zr, err := zstd.NewReader(f, zstd.WithDecoderMaxMemory(uint64(limit)))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	raw, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err == nil && int64(len(raw)) > limit {
		err = fmt.Errorf("over %d bytes decoded", limit)
	}
	if err == nil {
		err = checkGobFrames(raw)
	}
	var st checkpointState
	if err == nil {
		err = gob.NewDecoder(bytes.NewReader(raw)).Decode(&st)
	}
	if err != nil || st.Version != checkpointVersion {
		return nil, fmt.Errorf("bake: %s is not a checkpoint of this version (%v): remove the folder to start again", f.Name(), err)
	}
	if d := differ(key, st.Key); d != "" {
		return nil, fmt.Errorf("bake: %s is a checkpoint of another bake, which differs in %s: %w; use another folder or remove it", dir, d, ErrOtherBake)
	}
	if len(st.Outputs) != len(cfg.Outputs) || len(st.Tally) != len(cfg.Outputs) {
		return nil, fmt.Errorf("bake: %s: a checkpoint of %d outputs: %w", dir, len(st.Outputs), ErrOtherBake)
	}
	ck.state = &st
	return ck, nil
}

// checkpointLimit bounds the decoded bytes of a checkpoint of a bake of
// quads quads with outputs outputs: 64 MiB and 8 bytes per quad for the
// bake and for each output — far above what a bake writes there (a few
// trees per level and per output some numbers per level and checkpoint),
// and proportional to what the bake holds in memory anyway.
func checkpointLimit(quads, outputs int) int64 {
	return 64<<20 + 8*int64(quads)*int64(1+outputs)
}

// checkGobFrames checks that b is a sequence of gob messages, each a
// length (gob's unsigned integer: one byte under 128, else a negated byte
// count and that many bytes, big-endian) and no more bytes than are left,
// so that decoding b allocates no more than its size.
func checkGobFrames(b []byte) error {
	for at := 0; at < len(b); {
		n, w := uint64(b[at]), 1
		if n >= 128 {
			k := int(-int8(b[at]))
			if k < 1 || k > 8 || at+1+k > len(b) {
				return fmt.Errorf("a bad message length at byte %d", at)
			}
			n = 0
			for _, c := range b[at+1 : at+1+k] {
				n = n<<8 | uint64(c)
			}
			w = 1 + k
		}
		at += w
		if n > uint64(len(b)-at) {
			return fmt.Errorf("a message of %d bytes at byte %d, where %d are left", n, at, len(b)-at)
		}
		at += int(n)
	}
	return nil
}

// tileStarts marks the jobs that start a tile of plan: the job whose first
// point is the tile's first cell (tiles of level 2 or more hold whole
// blocks).
func (ck *checkpointer) tileStarts(jobs []blockJob, plan Plan) {
	starts := map[int]bool{}
	for _, c := range plan.Cells[1 : len(plan.Cells)-1] {
		starts[c] = true
	}
	for j, jb := range jobs {
		if j > 0 && starts[jb.first] {
			ck.at[j] = true
		}
	}
}

// openCoded opens (fresh: creates, empty) the file in which coded output
// i is written and its adds list, both positioned at the checkpoint's
// bytes, and returns the checkpoint's writer state with its index
// replayed from the list (nil for a fresh start).
func (ck *checkpointer) openCoded(i, quads int) (*os.File, *os.File, *compress.CodedWriterState, error) {
	// Never through a planted link: these files are written in place.
	f, err := atomicfile.OpenRegular(filepath.Join(ck.dir, codedStoreName(i)), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("bake: %w; remove the folder to start again", err)
	}
	adds, err := atomicfile.OpenRegular(filepath.Join(ck.dir, codedAddsName(i)), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("bake: %w; remove the folder to start again", err)
	}
	fail := func(err error) (*os.File, *os.File, *compress.CodedWriterState, error) {
		f.Close()
		adds.Close()
		return nil, nil, nil, err
	}
	var pos, n int64
	var ws *compress.CodedWriterState
	if ck.state != nil {
		cs := &ck.state.Outputs[i]
		ws = &cs.Writer
		pos = ws.Pos
		for _, d := range cs.Done {
			if d < 0 || d > quads {
				return fail(fmt.Errorf("bake: %s: a checkpoint of %d quads coded at a level of a %d-quad bake: remove the folder to start again", ck.dir, d, quads))
			}
			n += 8 * int64(d)
		}
		if n > 8*int64(quads) || pos < 0 {
			return fail(fmt.Errorf("bake: %s: a checkpoint of %d quads coded (%d bytes written) for %d quads: remove the folder to start again", ck.dir, n/8, pos, quads))
		}
		if st, err := f.Stat(); err != nil || st.Size() < pos {
			return fail(fmt.Errorf("bake: %s is shorter than its checkpoint says (%d bytes): remove the folder to start again", f.Name(), pos))
		}
		if st, err := adds.Stat(); err != nil || st.Size() < n {
			return fail(fmt.Errorf("bake: %s is shorter than its checkpoint says (%d bytes): remove the folder to start again", adds.Name(), n))
		}
		list := make([]byte, n)
		if _, err := io.ReadFull(adds, list); err != nil || crc32.Checksum(list, castagnoli) != cs.AddsCRC {
			return fail(fmt.Errorf("bake: %s does not hold the list its checkpoint wrote: remove the folder to start again", adds.Name()))
		}
		// The store's bytes must be those written then (the writer's chunk
		// checksums), or the bake would go on from bytes it never wrote.
		if err := compress.CheckCodedPrefix(f, *ws); err != nil {
			return fail(fmt.Errorf("bake: %s does not hold what its checkpoint wrote (%v): remove the folder to start again", f.Name(), err))
		}
		k := 0
		if err := compress.ReplayIndex(ws, quads, func() (int, uint64, bool) {
			if k == len(list) {
				return 0, 0, false
			}
			k += 8
			return int(binary.LittleEndian.Uint32(list[k-8:])), uint64(binary.LittleEndian.Uint32(list[k-4:])), true
		}); err != nil {
			return fail(fmt.Errorf("bake: %s: %w", adds.Name(), err))
		}
	}
	for _, fp := range []struct {
		f   *os.File
		pos int64
	}{{f, pos}, {adds, n}} {
		if err := fp.f.Truncate(fp.pos); err == nil {
			_, err = fp.f.Seek(fp.pos, io.SeekStart)
		}
		if err != nil {
			return fail(fmt.Errorf("bake: %w", err))
		}
	}
	return f, adds, ws, nil
}

// restore puts the checkpoint's state into pl (its stores already
// resumed by createStores).
func (ck *checkpointer) restore(pl *pipeline) error {
	st := ck.state
	if st.Job < 0 || st.Job > len(pl.jobs) || (st.Job > 0 && !ck.at[st.Job]) {
		return fmt.Errorf("bake: %s: a checkpoint at job %d, not at a tile's start: %w", ck.dir, st.Job, ErrOtherBake)
	}
	if err := ck.validate(pl); err != nil {
		return fmt.Errorf("bake: %s: a checkpoint this bake cannot have written (%v): remove the folder to start again", ck.dir, err)
	}
	bs := quadtree.BuilderState{Next: st.Next, Partials: make([]*quadpvs.Tree, len(st.Partials))}
	for l, c := range st.Partials {
		var err error
		if bs.Partials[l], err = c.tree(pl.g); err != nil {
			return fmt.Errorf("bake: checkpoint: level %d: %w", l, err)
		}
	}
	if err := quadtree.Restore(pl.builder, bs); err != nil {
		return err
	}
	pl.startJob, pl.startDone = st.Job, st.Done
	copy(pl.wr.tally, st.Tally)
	for i, s := range pl.sink.(stores) {
		c, cs := s.coded, st.Outputs[i]
		p := c.p
		if len(cs.Done) != len(p.done) || len(cs.Pending) != len(c.pending) {
			return fmt.Errorf("bake: checkpoint: output %d of another geometry: %w", i, ErrOtherBake)
		}
		p.sched = cs.Sched
		copy(p.done, cs.Done)
		p.used, p.predUsed, p.pinned, p.pinDone, p.steps = cs.Used, cs.PredUsed, cs.Pinned, cs.PinDone, cs.Steps
		c.maxLen = cs.MaxLen
		for l, ps := range cs.Pending {
			for _, pt := range ps {
				t, err := pt.T.tree(pl.g)
				if err != nil || t == nil {
					return fmt.Errorf("bake: checkpoint: a tree waiting at level %d: %v", l, err)
				}
				c.pending[l] = append(c.pending[l], pendingTree{pt.Q, pt.Step, *t})
			}
		}
	}
	return nil
}

// validate checks every number of the checkpoint against the bake pl is
// (a tampered one panicked in make or at an index, or was taken as it
// came: a negative Used printed -4.6e18 bytes in memory).
func (ck *checkpointer) validate(pl *pipeline) error {
	st := ck.state
	quads := pl.g.Layout().Quads()
	switch {
	case st.Done < 0 || st.Done > pl.g.Width*pl.g.Height:
		return fmt.Errorf("%d points done", st.Done)
	case st.Next < 0 || st.Next > quads:
		return fmt.Errorf("%d quads taken", st.Next)
	case len(st.Partials) > pl.g.Levels():
		return fmt.Errorf("%d partial trees", len(st.Partials))
	}
	for i, s := range pl.sink.(stores) {
		cs, p := &st.Outputs[i], s.coded.p
		if len(cs.Done) != len(p.quads) {
			return fmt.Errorf("output %d: %d levels", i, len(cs.Done))
		}
		for l, d := range cs.Done {
			if d < 0 || d > p.quads[l] {
				return fmt.Errorf("output %d: %d quads of level %d coded", i, d, l)
			}
		}
		if len(cs.Sched) > len(pl.jobs)/checkpointJobs+2 {
			return fmt.Errorf("output %d: %d scheduled steps", i, len(cs.Sched))
		}
		for _, k := range cs.Sched {
			if k < 0 || int(k) >= len(p.ladder) {
				return fmt.Errorf("output %d: step %d of %d", i, k, len(p.ladder))
			}
		}
		switch {
		case cs.Used != int64(cs.Writer.BlocksN):
			return fmt.Errorf("output %d: %d block bytes used, %d written", i, cs.Used, cs.Writer.BlocksN)
		case !(cs.PredUsed >= 0) || math.IsInf(cs.PredUsed, 0):
			return fmt.Errorf("output %d: %g bytes predicted", i, cs.PredUsed)
		case cs.Pinned < 0 || cs.PinDone < 0 || cs.PinDone > quads || cs.Steps < 0:
			return fmt.Errorf("output %d: pinned %d bytes of %d trees, %d steps", i, cs.Pinned, cs.PinDone, cs.Steps)
		case cs.MaxLen < 0 || cs.MaxLen > 1<<blockindex.LenBits:
			return fmt.Errorf("output %d: blocks of %d bytes", i, cs.MaxLen)
		}
		for l, ps := range cs.Pending {
			for _, pt := range ps {
				if pt.Q < 0 || pt.Q >= quads || pt.Step < 0 || int(pt.Step) >= len(p.ladder) {
					return fmt.Errorf("output %d: a tree of quad %d at step %d waiting at level %d", i, pt.Q, pt.Step, l)
				}
			}
		}
	}
	return nil
}

// save is the writer's at a checkpoint (job: the first job after it,
// done: the points before it): every quad before is written, the builder
// waits. It syncs the stores and writes the checkpoint file atomically.
func (ck *checkpointer) save(pl *pipeline, job, done int) error {
	st := checkpointState{Version: checkpointVersion, Key: ck.key, Job: job, Done: done, Tally: pl.wr.tally}
	bs := quadtree.StateOf(pl.builder)
	st.Next = bs.Next
	for _, t := range bs.Partials {
		st.Partials = append(st.Partials, treeState(t))
	}
	for _, s := range pl.sink.(stores) {
		c := s.coded
		ws, err := c.w.Checkpoint()
		if err == nil {
			err = c.f.Sync()
		}
		if err == nil {
			err = c.adds.Flush()
		}
		if err == nil {
			err = c.addsFile.Sync()
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", c.f.Name(), err)
		}
		ws.Index, ws.Set = nil, nil // in the adds list
		p := c.p
		p.mu.Lock()
		sched := append([]int32(nil), p.sched...)
		p.mu.Unlock()
		cs := codedState{Writer: ws, Sched: sched, Done: p.done, Used: p.used, PredUsed: p.predUsed, Pinned: p.pinned,
			PinDone: p.pinDone, Steps: p.steps, MaxLen: c.maxLen, AddsCRC: c.addsCRC, Pending: make([][]ckPending, len(c.pending))}
		for l, ps := range c.pending {
			for _, pt := range ps {
				cs.Pending[l] = append(cs.Pending[l], ckPending{pt.q, pt.step, treeState(&pt.t)})
			}
		}
		st.Outputs = append(st.Outputs, cs)
	}
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(zw).Encode(&st); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(ck.dir, checkpointName), func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	}); err != nil {
		return fmt.Errorf("bake: checkpoint: %w", err)
	}
	if ck.after != nil {
		ck.after(job)
	}
	return nil
}

// remove deletes the folder's checkpoint and stores: the bake is done.
func (ck *checkpointer) remove(outputs int) {
	os.Remove(filepath.Join(ck.dir, checkpointName))
	for i := range outputs {
		os.Remove(filepath.Join(ck.dir, codedStoreName(i)))
		os.Remove(filepath.Join(ck.dir, codedAddsName(i)))
	}
	os.Remove(ck.dir) // when empty
}

// resumeCoded is Resume for coded outputs: Run with checkpoints in dir.
func resumeCoded(ctx context.Context, cfg Config, dir string, plan Plan) ([]compress.Stats, error) {
	for _, o := range cfg.Outputs {
		if !o.Coded {
			return nil, errors.New("bake: a resumable bake writes all its outputs flat or all coded")
		}
	}
	if tiles, _ := filepath.Glob(filepath.Join(dir, "tile-*-of-*.part")); len(tiles) > 0 {
		return nil, fmt.Errorf("bake: %s holds a flat bake's tiles, this bake is coded: %w; use another folder or remove it", dir, ErrOtherBake)
	}
	ck, err := newCheckpointer(cfg, plan, dir)
	if err != nil {
		return nil, err
	}
	cfg.ckpt = ck
	stats, err := Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ck.remove(len(cfg.Outputs))
	return stats, nil
}
