package compress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// Magic opens every store; Version is the newest format version this
// package reads and writes (FORMAT.md): coded stores (WriteCoded) are
// version 4, flat ones still VersionFlat, which older readers read.
const (
	Magic       = "PVSSTORE"
	Version     = 4
	VersionFlat = 3
	// Encoding names the tree encoding of the CODE section.
	Encoding = "quadpvs-bfs-2bit"
	// EncodingCoded names that of a coded store's CBLK section: each
	// quad's tree coded given its parent's (quadpvs.CondCoder).
	EncodingCoded = "quadpvs-cond-rans"
)

// Header describes a store: the grid, where it came from, the visibility
// parameters and the budget. It is the HEAD section, as JSON.
type Header struct {
	Width           int        `json:"width"`  // cells
	Height          int        `json:"height"` // cells
	DxM             float64    `json:"dx_m"`   // metres between columns
	DyM             float64    `json:"dy_m"`   // metres between rows
	GeoTransform    [6]float64 `json:"geotransform"`
	HasGeoTransform bool       `json:"has_geotransform"`
	CRS             string     `json:"crs_wkt"`
	CRSName         string     `json:"crs"`
	Source          string     `json:"source"` // DEM path as given to the baker
	Window          [4]int     `json:"window"` // col,row,width,height in the source raster
	ZScale          float64    `json:"z_scale"`
	Params          VisParams  `json:"params"`
	BudgetBytes     int64      `json:"budget_bytes"` // 0 when the cap was given in nodes
	Cap             Cap        `json:"cap"`
	Encoding        string     `json:"encoding"`
	// Shared is the number of shared subtrees (quadpvs.Hierarchy.Share),
	// stored as trees after the quads'; RefBits the low bits of a
	// reference that name its subtree. Both 0 in a store without sharing.
	Shared  int `json:"shared_subtrees,omitempty"`
	RefBits int `json:"ref_bits,omitempty"`
	// Allocation, when set, records a global allocation (Allocate): the
	// trees' sizes vary, each at most Allocation.CeilingCodes = Cap.Codes.
	// Absent: every tree capped alike at Cap.
	Allocation *Allocation `json:"allocation,omitempty"`
	// CacheTrees is a coded store's cache of decoded trees
	// (quadpvs.Coded.CacheTrees); 0 in a flat store.
	CacheTrees int `json:"cache_trees,omitempty"`
}

// VisParams are the per-point visibility parameters (horizon.Params) in the
// store's units.
type VisParams struct {
	Sectors         int     `json:"sectors"`
	ObserverHeightM float64 `json:"observer_height_m"`
	TargetHeightM   float64 `json:"target_height_m"`
	MaxDistanceM    float64 `json:"max_distance_m"`
	EarthCurvature  bool    `json:"earth_curvature"`
	Refraction      float64 `json:"refraction"`
	MarginM         float64 `json:"margin_m,omitempty"`
	// Conservative: baked with horizon.Params.Conservative (hidden only
	// when the exact line of sight is blocked); absent: the sector model.
	Conservative bool `json:"conservative,omitempty"`
}

// Horizon returns the parameters as horizon.Params.
func (v VisParams) Horizon() horizon.Params {
	return horizon.Params{Sectors: v.Sectors, ObserverHeight: v.ObserverHeightM, TargetHeight: v.TargetHeightM,
		MaxDistance: v.MaxDistanceM, EarthCurvature: v.EarthCurvature, Refraction: v.Refraction, Margin: v.MarginM,
		Conservative: v.Conservative}
}

// FromHorizon converts horizon.Params.
func FromHorizon(p horizon.Params) VisParams {
	return VisParams{Sectors: p.Sectors, ObserverHeightM: p.ObserverHeight, TargetHeightM: p.TargetHeight,
		MaxDistanceM: p.MaxDistance, EarthCurvature: p.EarthCurvature, Refraction: p.Refraction, MarginM: p.Margin,
		Conservative: p.Conservative}
}

// Stats are measured while baking: the STAT section, as JSON.
type Stats struct {
	Quads       int     `json:"quads"`
	NodesTotal  int64   `json:"nodes_total"`
	NodesMax    int     `json:"nodes_max"`
	CodesTotal  int64   `json:"codes_total"`
	MemoryBytes int64   `json:"memory_bytes"` // the loaded hierarchy's size (quadpvs.Hierarchy.Bytes)
	HiddenKept  float64 `json:"hidden_kept"`  // hidden cells kept / hidden cells before capping, over the sample
	HiddenQuads int     `json:"hidden_kept_quads"`
}

// Tally accumulates a store's statistics while its quads are written. The
// tallies of a sharded bake's parts add up (Add) to the single bake's, which
// Stats turns into the STAT section.
type Tally struct {
	Quads        int   `json:"quads"` // trees written
	NodesTotal   int64 `json:"nodes_total"`
	NodesMax     int   `json:"nodes_max"`
	CodesTotal   int64 `json:"codes_total"`
	MemoryBytes  int64 `json:"memory_bytes"`
	HiddenBefore int64 `json:"hidden_before"` // hidden cells of the sampled quads before capping
	HiddenAfter  int64 `json:"hidden_after"`  // and after
	HiddenQuads  int   `json:"hidden_quads"`  // quads sampled
}

// Tree counts one written tree.
func (t *Tally) Tree(tr *quadpvs.Tree) {
	t.Quads++
	t.NodesTotal += int64(tr.Nodes())
	t.NodesMax = max(t.NodesMax, tr.Nodes())
	t.CodesTotal += int64(tr.Len())
	t.MemoryBytes += int64(QuadOverhead + quadpvs.BytesFor(tr.Len()))
}

// Hidden counts one sampled quad's hidden cells before and after capping.
func (t *Tally) Hidden(before, after int) {
	t.HiddenBefore += int64(before)
	t.HiddenAfter += int64(after)
	t.HiddenQuads++
}

// Add adds o's counts to t's.
func (t *Tally) Add(o Tally) {
	t.Quads += o.Quads
	t.NodesTotal += o.NodesTotal
	t.NodesMax = max(t.NodesMax, o.NodesMax)
	t.CodesTotal += o.CodesTotal
	t.MemoryBytes += o.MemoryBytes
	t.HiddenBefore += o.HiddenBefore
	t.HiddenAfter += o.HiddenAfter
	t.HiddenQuads += o.HiddenQuads
}

// Stats returns the statistics the tally makes: HiddenKept is
// HiddenAfter ÷ HiddenBefore, 1 when nothing hidden was sampled.
func (t Tally) Stats() Stats {
	st := Stats{Quads: t.Quads, NodesTotal: t.NodesTotal, NodesMax: t.NodesMax, CodesTotal: t.CodesTotal,
		MemoryBytes: t.MemoryBytes, HiddenKept: 1, HiddenQuads: t.HiddenQuads}
	if t.HiddenBefore > 0 {
		st.HiddenKept = float64(t.HiddenAfter) / float64(t.HiddenBefore)
	}
	return st
}

// FormatError reports a store that is truncated, corrupt, foreign or of
// another version, with the byte offset where reading failed.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("compress: not a valid PVS store at byte %d: %s", e.Offset, e.Msg)
}

// Section tags and codecs (FORMAT.md).
const (
	tagHead = "HEAD"
	tagElev = "ELEV"
	tagNdat = "NDAT"
	tagCode = "CODE"
	tagQidx = "QIDX"
	tagStat = "STAT"
	tagRefs = "REFS"
	tagCtab = "CTAB"
	tagCidx = "CIDX"
	tagCblk = "CBLK"
	tagEnd  = "END "

	codecRaw  = 0
	codecZstd = 1

	sectionHeaderSize   = 32 // tag 4, codec 4, stored 8, raw 8, payload crc 4, header crc 4
	sectionHeaderSizeV1 = 28 // version 1: without the header's own crc
	fileHeaderSize      = 12 // magic 8, version 4
	qidxEntrySize       = 16 // word start 8, codes 4, nodes 4

	// maxZstdRatio bounds a zstd section's raw length by its stored
	// length: zstd's own limit, a 128 KiB block stored as a 4-byte RLE
	// block. No valid section exceeds it.
	maxZstdRatio = 32768
	// maxJSON bounds the raw length of the JSON sections (HEAD, STAT).
	maxJSON = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// File is where a Writer writes: sequential writes, plus one write back at
// the CODE section's header when the store is finished (*os.File is one).
type File interface {
	io.Writer
	io.WriterAt
}

// Writer writes a store as its quads' PVSs are produced, in any order (the
// CODE section is streamed, the quad index written at the end). Writing to a
// temporary file and renaming it is the caller's (internal/bake). It is not
// safe for concurrent use.
type Writer struct {
	sectionWriter
	h       Header
	quads   int
	codeAt  int64  // offset of the CODE section header
	words   uint64 // code words written
	crc     uint32
	idx     []byte // QIDX entries, by quad index
	set     []bool
	scratch []byte
	refs    []byte // REFS payload (shared stores)
}

// NewWriter starts a store in f for a hierarchy of the given quad count,
// writing the header, the elevations (metres, row-major, Width×Height) and
// the nodata cells (nil when none). A header with shared subtrees
// (h.Shared > 0) takes quads+h.Shared trees and the references
// (SetRefs) before Close.
func NewWriter(f File, h Header, quads int, elev []float32, nodata []bool) (*Writer, error) {
	if len(elev) != h.Width*h.Height || (nodata != nil && len(nodata) != len(elev)) {
		return nil, fmt.Errorf("compress: %d elevations for a %d×%d grid", len(elev), h.Width, h.Height)
	}
	if h.Shared < 0 {
		return nil, fmt.Errorf("compress: %d shared subtrees", h.Shared)
	}
	h.Encoding, h.CacheTrees = Encoding, 0
	trees := quads + h.Shared
	w := &Writer{sectionWriter: newSectionWriter(f), h: h, quads: trees,
		idx: make([]byte, trees*qidxEntrySize), set: make([]bool, trees)}
	if err := w.start(elev, nodata); err != nil {
		return nil, err
	}
	return w, nil
}

// sectionWriter writes a file of sections (FORMAT.md) through a buffer,
// counting the offset.
type sectionWriter struct {
	f   File
	bw  *bufio.Writer
	pos int64 // bytes written so far
}

func newSectionWriter(f File) sectionWriter {
	return sectionWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20)}
}

func (w *sectionWriter) write(p []byte) error {
	n, err := w.bw.Write(p)
	w.pos += int64(n)
	return err
}

// fileHeader writes the magic and the format version.
func (w *sectionWriter) fileHeader(magic string, version uint32) error {
	var fh [fileHeaderSize]byte
	copy(fh[:], magic)
	binary.LittleEndian.PutUint32(fh[8:], version)
	return w.write(fh[:])
}

// section writes a whole section: payload compressed with zstd when that
// makes it at least 10% smaller.
func (w *sectionWriter) section(tag string, raw []byte) error { return w.sectionAs(tag, raw, true) }

// sectionAs is section, trying zstd only when tryZstd is set.
func (w *sectionWriter) sectionAs(tag string, raw []byte, tryZstd bool) error {
	codec, stored := uint32(codecRaw), raw
	if tryZstd && len(raw) > 256 {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
		z := enc.EncodeAll(raw, nil)
		enc.Close()
		if len(z) < len(raw)*9/10 {
			codec, stored = codecZstd, z
		}
	}
	if err := w.write(sectionHeader(tag, codec, uint64(len(stored)), uint64(len(raw)), crc32.Checksum(stored, castagnoli))); err != nil {
		return err
	}
	return w.write(stored)
}

// grid writes the ELEV section and, when nodata is not nil, NDAT.
func (w *sectionWriter) grid(elev []float32, nodata []bool) error {
	if err := w.section(tagElev, elevBytes(elev)); err != nil {
		return err
	}
	if nodata != nil {
		return w.section(tagNdat, nodataBytes(nodata))
	}
	return nil
}

// elevBytes returns the ELEV payload: float32 little-endian.
func elevBytes(elev []float32) []byte {
	eb := make([]byte, 4*len(elev))
	for i, v := range elev {
		binary.LittleEndian.PutUint32(eb[4*i:], math.Float32bits(v))
	}
	return eb
}

// nodataBytes returns the NDAT payload: bit i of byte i/8 set for cell i.
func nodataBytes(nodata []bool) []byte {
	nb := make([]byte, (len(nodata)+7)/8)
	for i, v := range nodata {
		if v {
			nb[i>>3] |= 1 << (i & 7)
		}
	}
	return nb
}

// sectionHeader returns a section header of the current version: the
// fields, then the CRC-32C of the 28 bytes before it.
func sectionHeader(tag string, codec uint32, stored, raw uint64, crc uint32) []byte {
	b := make([]byte, sectionHeaderSize)
	copy(b, tag)
	binary.LittleEndian.PutUint32(b[4:], codec)
	binary.LittleEndian.PutUint64(b[8:], stored)
	binary.LittleEndian.PutUint64(b[16:], raw)
	binary.LittleEndian.PutUint32(b[24:], crc)
	binary.LittleEndian.PutUint32(b[28:], crc32.Checksum(b[:28], castagnoli))
	return b
}

// begin writes a store's file header of the given version, its header h
// (HEAD) and its grid (ELEV, NDAT).
func (w *sectionWriter) begin(version uint32, h Header, elev []float32, nodata []bool) error {
	if err := w.fileHeader(Magic, version); err != nil {
		return err
	}
	head, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := w.section(tagHead, head); err != nil {
		return err
	}
	return w.grid(elev, nodata)
}

func (w *Writer) start(elev []float32, nodata []bool) error {
	if err := w.begin(VersionFlat, w.h, elev, nodata); err != nil {
		return err
	}
	// CODE is streamed raw; its lengths and checksum are patched by Commit.
	w.codeAt = w.pos
	return w.write(sectionHeader(tagCode, codecRaw, 0, 0, 0))
}

// Add appends the PVS of quad index q (quadpvs.Hierarchy layout). Every quad
// must be added exactly once before Commit.
func (w *Writer) Add(q int, t *quadpvs.Tree) error {
	if q < 0 || q >= w.quads || w.set[q] {
		return fmt.Errorf("compress: quad %d added twice or out of range (%d quads)", q, w.quads)
	}
	w.set[q] = true
	e := w.idx[q*qidxEntrySize:]
	binary.LittleEndian.PutUint64(e, w.words)
	binary.LittleEndian.PutUint32(e[8:], uint32(t.Len()))
	binary.LittleEndian.PutUint32(e[12:], uint32(t.Nodes()))
	b := w.scratch[:0]
	for _, c := range t.Codes() {
		b = binary.LittleEndian.AppendUint64(b, c)
	}
	w.scratch = b
	w.crc = crc32.Update(w.crc, castagnoli, b)
	if err := w.write(b); err != nil {
		return err
	}
	w.words += uint64(len(t.Codes()))
	return nil
}

// SetRefs sets a shared store's references (quadpvs.Hierarchy's RefStart
// and Refs, one start per tree and one more).
func (w *Writer) SetRefs(start, refs []uint32) error {
	if w.h.Shared == 0 || len(start) != w.quads+1 || int(start[w.quads]) != len(refs) {
		return fmt.Errorf("compress: %d reference starts and %d references for %d trees, %d shared", len(start), len(refs), w.quads, w.h.Shared)
	}
	b := make([]byte, 0, 4*(len(start)+len(refs)))
	for _, v := range start {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, v := range refs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	w.refs = b
	return nil
}

// AddHierarchy adds every tree of h (quads, then shared subtrees) and its
// references; the header must have h's Shared and RefBits.
func (w *Writer) AddHierarchy(h *quadpvs.Hierarchy) error {
	if w.h.Shared != h.Shared || w.h.Shared > 0 && w.h.RefBits != h.RefBits {
		return fmt.Errorf("compress: header of %d shared subtrees (%d bits) for a hierarchy of %d (%d bits)", w.h.Shared, w.h.RefBits, h.Shared, h.RefBits)
	}
	for q := range h.Quads() + h.Shared {
		t := h.PVS(q)
		if err := w.Add(q, &t); err != nil {
			return err
		}
	}
	if h.Shared > 0 {
		return w.SetRefs(h.RefStart, h.Refs)
	}
	return nil
}

// Close finishes the store with its statistics: the quad index, the
// references of a shared store, the statistics, the end marker, and the
// CODE section's lengths and checksum written back. It does not close f.
func (w *Writer) Close(st Stats) error {
	for q, ok := range w.set {
		if !ok {
			return fmt.Errorf("compress: quad %d of %d was never added", q, w.quads)
		}
	}
	if w.h.Shared > 0 && w.refs == nil {
		return fmt.Errorf("compress: a store of %d shared subtrees closed without its references", w.h.Shared)
	}
	codeLen := uint64(w.pos - w.codeAt - sectionHeaderSize)
	if err := w.section(tagQidx, w.idx); err != nil {
		return err
	}
	if w.refs != nil {
		if err := w.section(tagRefs, w.refs); err != nil {
			return err
		}
	}
	return w.finish(st, tagCode, w.codeAt, codeLen, w.crc)
}

// finish ends a file: the statistics st as the STAT section (JSON), the end
// marker, and the header of the streamed raw section tag at offset at
// written back with its length n (bytes) and checksum crc.
func (w *sectionWriter) finish(st any, tag string, at int64, n uint64, crc uint32) error {
	if err := w.end(st); err != nil {
		return err
	}
	_, err := w.f.WriteAt(sectionHeader(tag, codecRaw, n, n, crc), at)
	return err
}

// end writes the statistics st as the STAT section (JSON) and the end
// marker, and flushes the buffer.
func (w *sectionWriter) end(st any) error {
	sj, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := w.section(tagStat, sj); err != nil {
		return err
	}
	if err := w.section(tagEnd, nil); err != nil {
		return err
	}
	return w.bw.Flush()
}

// Store is a loaded PVS store. It is read-only and safe for concurrent use
// by many goroutines (frontier queries share one Store).
type Store struct {
	Header
	Stats
	Hierarchy *quadpvs.Hierarchy
	Elev      []float32 // metres, row-major Width×Height
	Nodata    []bool    // nil when the DEM had no nodata cells
}

// maxSection bounds a section's declared size, so that a corrupt length
// cannot ask for absurd memory: 64 GiB.
const maxSection = 64 << 30

// Decode reads a store from r. Errors are *FormatError (matching
// ErrNotStore) for input that is not a valid store, with the byte offset:
// truncated, corrupt (checksums), foreign (magic), of another version, or
// inconsistent; a store it accepts is safe to query. Version 1 stores (no
// section header checksums) are still read. Decode reads all of r into
// memory first, so that the input's size bounds the memory as in
// DecodeSize; use DecodeSize on a file.
func Decode(r io.Reader) (*Store, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return DecodeSize(bytes.NewReader(b), int64(len(b)))
}

// DecodeSize is Decode for input of known size in bytes (a file's).
//
// Memory: every section's length is checked before its memory is
// allocated: against the input size when known; against the size the
// header implies (ELEV 4 bytes a cell, NDAT a bit a cell, QIDX 16 bytes a
// quad; HEAD and STAT at most 1 MiB); a zstd section's raw length at most
// 32,768 times its stored length (zstd's own limit). With a known size the
// grid itself is bounded by the file: CODE holds at least one 8-byte word
// per quad, so a W×H grid needs a file of at least 8·W·H bytes, and the
// loaded store takes a few times the file's size at most. size < 0 means
// unknown: then the zstd bound is the only one on ELEV, NDAT and QIDX.
func DecodeSize(r io.Reader, size int64) (*Store, error) {
	d := decoder{r: r, size: size}
	if err := d.start(Magic, "no PVSSTORE magic: not a PVS store", "", Version); err != nil {
		return nil, err
	}
	s := &Store{}
	seen := map[string]bool{}
	var qidx, refs []byte
	var codes []uint64
	var cs codedSections
	var cells, quads uint64 // quads: trees, shared subtrees included
	for {
		at := d.off
		tag, codec, stored, raw, crc, err := d.sectionHeader()
		if err != nil {
			return nil, err
		}
		if seen[tag] {
			return nil, &FormatError{at, fmt.Sprintf("section %q twice", tag)}
		}
		seen[tag] = true
		if !seen[tagHead] {
			return nil, &FormatError{at, fmt.Sprintf("section %q before the header (HEAD must come first)", tag)}
		}
		var want uint64 // exact raw length, where the header implies one
		switch tag {
		case tagHead, tagStat:
			if raw > maxJSON {
				return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes: more than the %d a header or statistics take", tag, raw, maxJSON)}
			}
		case tagElev:
			want = 4 * cells
		case tagNdat:
			want = (cells + 7) / 8
		case tagQidx:
			want = qidxEntrySize * quads
		case tagRefs:
			if s.Shared == 0 || raw < 4*(quads+1) || raw%4 != 0 {
				return nil, &FormatError{at, fmt.Sprintf("REFS section of %d bytes for %d trees, %d shared subtrees", raw, quads, s.Shared)}
			}
		case tagCtab:
			want, cs.ctabAt = quadpvs.CondTableBytes, at
		case tagCidx, tagCblk:
			// Raw, so that the file bounds the memory (CIDX's 8 bytes per
			// quad are what the header's size check counts on).
			if codec != codecRaw {
				return nil, &FormatError{at, tag + " section must be raw"}
			}
			if tag == tagCidx {
				want, cs.cidxAt = 8*(quads+1), at+int64(d.hsize)
			} else {
				cs.cblkAt = at + int64(d.hsize)
			}
		case tagEnd:
		case tagCode:
			if codec != codecRaw || raw%8 != 0 {
				return nil, &FormatError{at, "CODE section must be raw whole words"}
			}
			if raw/8 < quads {
				return nil, &FormatError{at, fmt.Sprintf("CODE section of %d words for %d quads: every quad's tree takes at least one", raw/8, quads)}
			}
			if codes, err = d.words(raw/8, crc); err != nil {
				return nil, err
			}
			continue
		default:
			// Unknown sections are skipped: later minor versions may add some.
			if err := d.skip(stored, crc); err != nil {
				return nil, err
			}
			continue
		}
		if want != 0 && raw != want {
			return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes for a %d×%d grid, which needs %d", tag, raw, s.Width, s.Height, want)}
		}
		payload, err := d.section(at, tag, codec, stored, raw, crc)
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagHead:
			if err := json.Unmarshal(payload, &s.Header); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if cells, quads, err = s.Header.check(size); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if s.Encoding == EncodingCoded && d.version < 4 {
				return nil, &FormatError{at, fmt.Sprintf("header: a coded store in a version %d file (coded stores are version 4)", d.version)}
			}
		case tagElev:
			s.Elev = decodeElev(payload)
			for i, e := range s.Elev {
				if math.IsNaN(float64(e)) || math.IsInf(float64(e), 0) {
					return nil, &FormatError{at, fmt.Sprintf("ELEV section: cell (%d,%d) is %g, want a finite elevation (nodata cells hold their filled value)",
						i%s.Width, i/s.Width, e)}
				}
			}
		case tagNdat:
			s.Nodata = decodeNodata(payload)[:cells]
		case tagQidx:
			qidx = payload
		case tagRefs:
			refs = payload
		case tagCtab:
			cs.ctab = payload
		case tagCidx:
			cs.cidx = payload
		case tagCblk:
			cs.cblk = payload
		case tagStat:
			if err := json.Unmarshal(payload, &s.Stats); err != nil {
				return nil, &FormatError{at, "statistics: " + err.Error()}
			}
		case tagEnd:
			if raw != 0 {
				return nil, &FormatError{at, "END section with a payload"}
			}
			if err := d.end(); err != nil {
				return nil, err
			}
			if s.Encoding == EncodingCoded {
				return s, s.finishCoded(seen, cs, d.off)
			}
			return s, s.finish(seen, qidx, refs, codes, d.off)
		}
	}
}

// check validates what a reader relies on in a store header and returns
// the grid's cell count and tree count (quads and shared subtrees); size is
// the file's (< 0: unknown).
// Bounds of a header's numbers: a cell of at most 1,000 km, map
// coordinates within ±10^12 CRS units.
const (
	maxSpacingM = 1e6
	maxCoord    = 1e12
)

func (h *Header) check(size int64) (cells, quads uint64, err error) {
	switch {
	case h.Encoding == Encoding && h.CacheTrees == 0:
	case h.Encoding == EncodingCoded && h.Shared == 0 && h.CacheTrees >= 1 && h.CacheTrees <= quadpvs.MaxCacheTrees && h.CacheTrees&(h.CacheTrees-1) == 0:
	default:
		return 0, 0, fmt.Errorf("tree encoding %q with %d shared subtrees and a cache of %d trees: this build reads %q (no cache) and %q (no sharing, a cache of a power of two up to %d trees)",
			h.Encoding, h.Shared, h.CacheTrees, Encoding, EncodingCoded, quadpvs.MaxCacheTrees)
	}
	g, err := quadpvs.NewGeometry(h.Width, h.Height)
	if err != nil {
		return 0, 0, err
	}
	if !(h.DxM > 0 && h.DyM > 0) || math.IsInf(h.DxM, 0) || math.IsInf(h.DyM, 0) {
		return 0, 0, fmt.Errorf("cell spacing %g × %g m, want positive and finite", h.DxM, h.DyM)
	}
	if h.DxM > maxSpacingM || h.DyM > maxSpacingM {
		return 0, 0, fmt.Errorf("cell spacing %g × %g m, want at most %g m", h.DxM, h.DyM, float64(maxSpacingM))
	}
	if err := h.Params.Horizon().Validate(); err != nil {
		return 0, 0, err
	}
	for _, v := range h.GeoTransform {
		if math.IsNaN(v) || math.Abs(v) > maxCoord {
			return 0, 0, fmt.Errorf("geotransform %v, want finite values within ±%g", h.GeoTransform, float64(maxCoord))
		}
	}
	if gt := h.GeoTransform; h.HasGeoTransform && gt[1]*gt[5]-gt[2]*gt[4] == 0 {
		return 0, 0, fmt.Errorf("geotransform %v maps the grid to a line", gt)
	}
	if w := h.Window; w != ([4]int{}) && (w[0] < 0 || w[1] < 0 || w[2] != h.Width || w[3] != h.Height) {
		return 0, 0, fmt.Errorf("window %v of the source raster for a %d×%d grid", w, h.Width, h.Height)
	}
	if h.Cap.Codes < 0 || h.Cap.Nodes < 0 || h.BudgetBytes < 0 || math.IsNaN(h.ZScale) || math.IsInf(h.ZScale, 0) {
		return 0, 0, fmt.Errorf("cap %+v, budget %d bytes, z-scale %g: want counts ≥ 0 and a finite scale", h.Cap, h.BudgetBytes, h.ZScale)
	}
	if h.Shared < 0 || h.Shared > 1<<31 || h.Shared > 0 && (h.RefBits < 1 || h.RefBits > 31 || h.Shared > 1<<h.RefBits) {
		return 0, 0, fmt.Errorf("%d shared subtrees named by %d bits", h.Shared, h.RefBits)
	}
	if a := h.Allocation; a != nil && (a.Policy != "global" || !a.ceilingMatches(h.Cap) ||
		!(a.Threshold >= 0) || math.IsInf(a.Threshold, 0) || !(a.LevelWeight > 0) || math.IsInf(a.LevelWeight, 0) ||
		a.Relaxed < 0 || a.Relaxed > g.QuadCount()) {
		return 0, 0, fmt.Errorf("allocation %+v with a cap of %d codes, %d nodes: want policy global, the cap as ceiling, a threshold ≥ 0, a level weight > 0",
			*a, h.Cap.Codes, h.Cap.Nodes)
	}
	cells, quads = uint64(h.Width)*uint64(h.Height), uint64(g.QuadCount())+uint64(h.Shared)
	if size >= 0 && 8*quads > uint64(size) {
		return 0, 0, fmt.Errorf("a %d×%d grid has %d quads and %d shared subtrees, whose trees take at least %d bytes; the file has %d",
			h.Width, h.Height, g.QuadCount(), h.Shared, 8*quads, size)
	}
	return cells, quads, nil
}

// decodeElev decodes an ELEV payload (a trailing partial value is dropped;
// callers check the count).
func decodeElev(payload []byte) []float32 {
	elev := make([]float32, len(payload)/4)
	for i := range elev {
		elev[i] = math.Float32frombits(binary.LittleEndian.Uint32(payload[4*i:]))
	}
	return elev
}

// decodeNodata decodes an NDAT payload into 8 flags per byte.
func decodeNodata(payload []byte) []bool {
	nodata := make([]bool, 8*len(payload))
	for i := range nodata {
		nodata[i] = payload[i>>3]>>(i&7)&1 != 0
	}
	return nodata
}

// finish checks that the required sections were present and builds the
// hierarchy; section sizes were checked as they were read.
func (s *Store) finish(seen map[string]bool, qidx, refs []byte, codes []uint64, end int64) error {
	for _, tag := range []string{tagElev, tagCode, tagQidx, tagStat} {
		if !seen[tag] {
			return &FormatError{end, fmt.Sprintf("missing %s section", tag)}
		}
	}
	for _, tag := range []string{tagCtab, tagCidx, tagCblk} {
		if seen[tag] {
			return &FormatError{end, fmt.Sprintf("%s section in a flat store (encoding %q)", tag, s.Encoding)}
		}
	}
	if s.Shared > 0 && refs == nil {
		return &FormatError{end, fmt.Sprintf("missing %s section for %d shared subtrees", tagRefs, s.Shared)}
	}
	g, err := quadpvs.NewGeometry(s.Width, s.Height)
	if err != nil {
		return &FormatError{end, err.Error()}
	}
	h := quadpvs.NewHierarchy(g)
	if s.Shared > 0 {
		trees := h.Quads() + s.Shared
		h.CodeStart, h.RankStart = make([]uint64, trees), make([]uint64, trees)
		h.Len, h.NodeCount = make([]uint32, trees), make([]uint32, trees)
		h.Shared, h.RefBits = s.Shared, s.RefBits
		h.RefStart = make([]uint32, trees+1)
		for i := range h.RefStart {
			h.RefStart[i] = binary.LittleEndian.Uint32(refs[4*i:])
		}
		h.Refs = make([]uint32, len(refs)/4-len(h.RefStart))
		for i := range h.Refs {
			h.Refs[i] = binary.LittleEndian.Uint32(refs[4*(len(h.RefStart)+i):])
		}
	}
	for q := range h.Quads() + h.Shared {
		e := qidx[q*qidxEntrySize:]
		h.CodeStart[q] = binary.LittleEndian.Uint64(e)
		h.Len[q] = binary.LittleEndian.Uint32(e[8:])
		h.NodeCount[q] = binary.LittleEndian.Uint32(e[12:])
		if a := s.Allocation; a != nil && q < h.Quads() {
			if a.CeilingCodes > 0 && h.Len[q] > uint32(a.CeilingCodes) {
				return &FormatError{end, fmt.Sprintf("quad %d: %d codes, over the allocation's ceiling of %d", q, h.Len[q], a.CeilingCodes)}
			}
			if a.CeilingNodes > 0 && h.NodeCount[q] > uint32(a.CeilingNodes) {
				return &FormatError{end, fmt.Sprintf("quad %d: %d nodes, over the allocation's ceiling of %d", q, h.NodeCount[q], a.CeilingNodes)}
			}
		}
	}
	h.Codes = codes
	if s.Shared > 0 {
		// References could expand a few stored codes into whole 4^K trees
		// (a chain of subtrees each referring to the previous). checkRefs
		// verifies every tree's node count against what its references
		// stand for; here the counts are bounded first: each by the cap
		// the trees were shared under, or, in a store without a cap, all
		// together by 16 times the codes stored.
		bound, total := int64(max(s.Cap.Codes, s.Cap.Nodes)), int64(0)
		for i, n := range h.NodeCount {
			total += int64(n)
			if bound > 0 && int64(n) > bound {
				name := fmt.Sprintf("quad %d", i)
				if i >= h.Quads() {
					name = fmt.Sprintf("shared subtree %d", i-h.Quads())
				}
				return &FormatError{end, fmt.Sprintf("%s: %d nodes through its references, more than the cap's %d", name, n, bound)}
			}
		}
		if stored := 32 * int64(len(codes)); bound == 0 && total > 16*stored+1<<16 {
			return &FormatError{end, fmt.Sprintf("references expand %d stored codes to %d nodes", stored, total)}
		}
	}
	if err := h.BuildRanks(); err != nil {
		return &FormatError{end, err.Error()}
	}
	s.Hierarchy = h
	return nil
}

// decoder reads sections while counting the offset.
type decoder struct {
	r       io.Reader
	off     int64
	size    int64 // input size in bytes, or -1 when unknown
	hsize   int   // section header size of the file's version
	version uint32
	buf     []byte
}

// start reads and checks the file header: the magic (notMsg when it is
// not), and a version from 1 to current (what names the format in the
// error); it sets the section header size of that version.
func (d *decoder) start(magic, notMsg, what string, current uint32) error {
	var fh [fileHeaderSize]byte
	n, _ := io.ReadFull(d.r, fh[:])
	d.off = int64(n)
	if m := min(n, len(magic)); n == 0 || string(fh[:m]) != magic[:m] {
		return &FormatError{0, notMsg}
	}
	if n < fileHeaderSize {
		return &FormatError{int64(n), "truncated file"}
	}
	v := binary.LittleEndian.Uint32(fh[8:])
	if v < 1 || v > current {
		return &FormatError{8, fmt.Sprintf("%sformat version %d, this build reads versions 1 to %d", what, v, current)}
	}
	d.hsize, d.version = sectionHeaderSize, v
	if v == 1 {
		d.hsize = sectionHeaderSizeV1
	}
	return nil
}

func (d *decoder) full(p []byte) error {
	n, err := io.ReadFull(d.r, p)
	d.off += int64(n)
	if err != nil {
		return &FormatError{d.off, "truncated file"}
	}
	return nil
}

// sectionHeader reads and checks one section header: its own checksum
// (version 2 on), sizes within maxSection and, when the input size is
// known, within the input.
func (d *decoder) sectionHeader() (tag string, codec uint32, stored, raw uint64, crc uint32, err error) {
	at := d.off
	var sh [sectionHeaderSize]byte
	if err = d.full(sh[:d.hsize]); err != nil {
		return
	}
	if d.hsize == sectionHeaderSize && crc32.Checksum(sh[:28], castagnoli) != binary.LittleEndian.Uint32(sh[28:]) {
		err = &FormatError{at, "section header checksum mismatch: the file is corrupt"}
		return
	}
	tag = string(sh[:4])
	codec = binary.LittleEndian.Uint32(sh[4:])
	stored = binary.LittleEndian.Uint64(sh[8:])
	raw = binary.LittleEndian.Uint64(sh[16:])
	crc = binary.LittleEndian.Uint32(sh[24:])
	if stored > maxSection || raw > maxSection || codec > codecZstd || (codec == codecRaw && stored != raw) {
		err = &FormatError{at, fmt.Sprintf("section %q: bad sizes or codec (%d stored, %d raw, codec %d)", tag, stored, raw, codec)}
	} else if codec == codecZstd && raw > stored*maxZstdRatio {
		err = &FormatError{at, fmt.Sprintf("section %q: %d raw bytes from %d stored, more than zstd can expand", tag, raw, stored)}
	} else if d.size >= 0 && int64(stored) > d.size-d.off {
		err = &FormatError{at, fmt.Sprintf("section %q of %d bytes runs past the end of the %d-byte file: truncated", tag, stored, d.size)}
	}
	return
}

// section reads and checks one payload, decompressing zstd into exactly
// raw bytes (the caller has bounded raw).
func (d *decoder) section(at int64, tag string, codec uint32, stored, raw uint64, crc uint32) ([]byte, error) {
	p := make([]byte, 0, min(stored, 1<<20))
	for uint64(len(p)) < stored {
		chunk := min(stored-uint64(len(p)), 1<<20)
		start := len(p)
		p = append(p, make([]byte, chunk)...)
		if err := d.full(p[start:]); err != nil {
			return nil, err
		}
	}
	if crc32.Checksum(p, castagnoli) != crc {
		return nil, &FormatError{at, fmt.Sprintf("%s section checksum mismatch: the file is corrupt", tag)}
	}
	if codec == codecRaw {
		return p, nil
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(max(2*raw, 1<<20)), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(p, make([]byte, 0, raw))
	if err != nil || uint64(len(out)) != raw {
		return nil, &FormatError{at, fmt.Sprintf("%s section does not decompress to its recorded size", tag)}
	}
	return out, nil
}

// scratch returns the decoder's read buffer, at least n bytes long when
// n ≤ 1 MiB, at most 1 MiB.
func (d *decoder) scratch(n uint64) []byte {
	n = min(max(n, 4096), 1<<20)
	if uint64(len(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	return d.buf
}

// skip reads past a payload of stored bytes, checking its checksum,
// without keeping it.
func (d *decoder) skip(stored uint64, crc uint32) error {
	at := d.off
	buf := d.scratch(stored)
	var sum uint32
	for left := stored; left > 0; {
		b := buf[:min(left, uint64(len(buf)))]
		if err := d.full(b); err != nil {
			return err
		}
		sum = crc32.Update(sum, castagnoli, b)
		left -= uint64(len(b))
	}
	if sum != crc {
		return &FormatError{at, "section checksum mismatch: the file is corrupt"}
	}
	return nil
}

// end checks that nothing follows the END section.
func (d *decoder) end() error {
	if d.size >= 0 {
		if d.off != d.size {
			return &FormatError{d.off, fmt.Sprintf("%d bytes after the END section", d.size-d.off)}
		}
		return nil
	}
	var b [1]byte
	if n, _ := io.ReadFull(d.r, b[:]); n > 0 {
		return &FormatError{d.off, "bytes after the END section"}
	}
	return nil
}

// words reads n little-endian uint64 words in chunks of up to 1 MiB,
// checking the CRC-32C of their bytes. With a known input size (checked by
// the caller) the words are allocated at once; otherwise the slice doubles
// as it fills, so that a corrupt length cannot make it allocate more than
// the input holds.
func (d *decoder) words(n uint64, crc uint32) ([]uint64, error) {
	at := d.off
	var out []uint64
	if d.size >= 0 {
		out = make([]uint64, 0, n)
	} else {
		out = make([]uint64, 0, min(n, 1<<17))
	}
	buf := d.scratch(8 * n)
	var sum uint32
	for left := n; left > 0; {
		k := min(left, uint64(len(buf)/8))
		b := buf[:8*k]
		if err := d.full(b); err != nil {
			return nil, err
		}
		sum = crc32.Update(sum, castagnoli, b)
		start := len(out)
		if start+int(k) > cap(out) {
			out = slices.Grow(out, max(int(k), cap(out))) // double
		}
		out = out[:start+int(k)]
		dst := out[start:]
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		left -= k
	}
	if sum != crc {
		return nil, &FormatError{at, "CODE checksum mismatch: the file is corrupt"}
	}
	return out, nil
}

// ErrNotStore matches every *FormatError under errors.Is, for callers that
// only need to know that the input is not a usable store.
var ErrNotStore = errors.New("compress: not a PVS store")

// Is makes errors.Is(err, ErrNotStore) true for any *FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrNotStore }
