package compress

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// PartMagic opens every partial bake file (one shard's share of a sharded
// bake, FORMAT.md "Partial bakes"); PartVersion is the version this package
// writes and reads.
const (
	PartMagic   = "PVSSHARD"
	PartVersion = 2
)

const (
	tagQuad   = "QUAD"
	rootFlag  = 1 // a QUAD record carries the subtree root's uncapped tree
	treeFixed = 8 // a tree record's n and nodes
)

// PartHeader describes one shard of a sharded bake: which subtrees it baked
// and for which stores. It is a partial file's HEAD section, as JSON. Every
// field but Shard, First, Last and Points is the same in all the shards of
// one bake.
type PartHeader struct {
	Shard        int          `json:"shard"`  // i, 0 ≤ i < Shards
	Shards       int          `json:"shards"` // N
	Level        int          `json:"level"`  // the shards own whole subtrees of this quad level
	First        int          `json:"first"`  // Morton ranks [First, Last) of the level's quads this shard owns
	Last         int          `json:"last"`
	Points       int          `json:"points"`     // terrain cells in those quads
	DEM          string       `json:"dem_sha256"` // DEMHash of the baked grid
	HiddenSample int          `json:"hidden_sample"`
	Outputs      []PartOutput `json:"outputs"`
}

// PartOutput is one store of the bake: its label, which names its file (the
// budget as given, e.g. "64MB", or "n267" for a node cap), and the header
// the store gets.
type PartOutput struct {
	Label string `json:"label"`
	Store Header `json:"store"`
}

// PartStats is a partial file's STAT section: per output, the tally of the
// trees the shard wrote.
type PartStats struct {
	Outputs []Tally `json:"outputs"`
}

// DEMHash returns the hex SHA-256 of a grid as a store holds it: width and
// height (uint32 each), the ELEV payload and, when nodata is not nil, the
// NDAT payload. Shards of one bake must agree on it.
func DEMHash(width, height int, elev []float32, nodata []bool) string {
	h := sha256.New()
	var wh [8]byte
	binary.LittleEndian.PutUint32(wh[:], uint32(width))
	binary.LittleEndian.PutUint32(wh[4:], uint32(height))
	h.Write(wh[:])
	h.Write(elevBytes(elev))
	if nodata != nil {
		h.Write(nodataBytes(nodata))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PartWriter writes a partial bake file as the shard's quads are finished,
// in the order the single bake would write them. It is not safe for
// concurrent use.
type PartWriter struct {
	sectionWriter
	outputs int
	quadAt  int64 // offset of the QUAD section header
	crc     uint32
	scratch []byte
}

// NewPartWriter starts a partial file in f: the header and, when elev is
// not nil (shard 0 carries them), the elevations (metres, row-major) and
// nodata cells of the grid.
func NewPartWriter(f File, h PartHeader, elev []float32, nodata []bool) (*PartWriter, error) {
	if len(h.Outputs) == 0 {
		return nil, fmt.Errorf("compress: partial bake without outputs")
	}
	for i := range h.Outputs {
		h.Outputs[i].Store.Encoding = Encoding
	}
	w := &PartWriter{sectionWriter: newSectionWriter(f), outputs: len(h.Outputs)}
	if err := w.fileHeader(PartMagic, PartVersion); err != nil {
		return nil, err
	}
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if err := w.section(tagHead, head); err != nil {
		return nil, err
	}
	if elev != nil {
		if err := w.grid(elev, nodata); err != nil {
			return nil, err
		}
	}
	w.quadAt = w.pos
	if err := w.write(sectionHeader(tagQuad, codecRaw, 0, 0, 0)); err != nil {
		return nil, err
	}
	return w, nil
}

// Add appends quad index q's trees, one per output (capped), and, for the
// root of one of the shard's subtrees, the root's uncapped tree (nil
// otherwise).
func (w *PartWriter) Add(q int, trees []*quadpvs.Tree, root *quadpvs.Tree) error {
	if len(trees) != w.outputs {
		return fmt.Errorf("compress: %d trees for %d outputs", len(trees), w.outputs)
	}
	b := w.scratch[:0]
	flags := uint32(0)
	if root != nil {
		flags = rootFlag
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(q))
	b = binary.LittleEndian.AppendUint32(b, flags)
	for _, t := range trees {
		b = appendTree(b, t)
	}
	if root != nil {
		b = appendTree(b, root)
	}
	w.scratch = b
	w.crc = crc32.Update(w.crc, castagnoli, b)
	return w.write(b)
}

func appendTree(b []byte, t *quadpvs.Tree) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Len()))
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Nodes()))
	for _, c := range t.Codes() {
		b = binary.LittleEndian.AppendUint64(b, c)
	}
	return b
}

// Close finishes the file with the shard's statistics, and writes back the
// QUAD section's lengths and checksum. It does not close f.
func (w *PartWriter) Close(st PartStats) error {
	return w.end(st, &streamed{tag: tagQuad, at: w.quadAt, n: uint64(w.pos - w.quadAt - sectionHeaderSize), crc: w.crc})
}

// PartTree is one tree of a QUAD record: N codes in Codes (⌈N/32⌉ words, as
// quadpvs.Tree.Codes returns them) and its node count. It is not checked:
// quadtree.FromCodes does that.
type PartTree struct {
	N, Nodes int
	Codes    []uint64
}

// PartQuad is one record of a partial file: quad index Q's tree per output
// and, for a subtree root, its uncapped tree (Root nil otherwise).
type PartQuad struct {
	Q     int
	Trees []PartTree
	Root  *PartTree
}

// PartError reports a partial bake file that is truncated, corrupt, foreign
// or of another version, with the byte offset where reading failed.
type PartError struct {
	Offset int64
	Msg    string
}

func (e *PartError) Error() string {
	return fmt.Sprintf("compress: not a valid partial bake at byte %d: %s", e.Offset, e.Msg)
}

// partError turns the section decoder's *FormatError into a *PartError.
func partError(err error) error {
	if fe, ok := err.(*FormatError); ok {
		return &PartError{fe.Offset, fe.Msg}
	}
	return err
}

// PartReader reads a partial bake file front to back. It is not safe for
// concurrent use.
type PartReader struct {
	Header PartHeader
	Elev   []float32 // metres, row-major; nil unless the file carries the grid
	Nodata []bool    // nil when absent
	Stats  PartStats // set once Next has returned io.EOF

	d      decoder
	quadAt int64  // offset of the QUAD section header
	left   uint64 // QUAD payload bytes not yet read
	want   uint32 // QUAD checksum
	crc    uint32
	end    error // io.EOF or the error that ended reading after the QUAD section
	rec    PartQuad
	root   PartTree
	buf    []byte
}

// NewPartReader reads a partial file's header and grid from r, which holds
// size bytes (size < 0: unknown), and stops at its first quad. Errors are
// *PartError with the byte offset.
func NewPartReader(r io.Reader, size int64) (*PartReader, error) {
	p, err := newPartReader(r, size)
	return p, partError(err)
}

func newPartReader(r io.Reader, size int64) (*PartReader, error) {
	buf := 1 << 20
	if size >= 0 {
		buf = int(min(max(size, 4096), 1<<20))
	}
	p := &PartReader{d: decoder{r: bufio.NewReaderSize(r, buf), size: size}}
	d := &p.d
	if err := d.start(PartMagic, "no PVSSHARD magic: not a partial bake (pvsbake bake --shard writes them)", "partial ", PartVersion); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var cells uint64
	for {
		at := d.off
		tag, codec, stored, raw, crc, err := p.d.sectionHeader()
		if err != nil {
			return nil, err
		}
		if err := seenSection(seen, tag, at); err != nil {
			return nil, err
		}
		var want uint64
		switch tag {
		case tagQuad:
			if codec != codecRaw {
				return nil, &FormatError{at, "QUAD section must be raw"}
			}
			p.quadAt, p.left, p.want = at, raw, crc
			p.rec.Trees = make([]PartTree, len(p.Header.Outputs))
			return p, nil
		case tagHead:
			if raw > maxPartJSON {
				return nil, &FormatError{at, fmt.Sprintf("HEAD section of %d bytes: more than the %d a partial header takes", raw, maxPartJSON)}
			}
		case tagElev:
			want = 4 * cells
		case tagNdat:
			want = (cells + 7) / 8
		case tagEnd:
			return nil, &FormatError{at, "no QUAD section"}
		default:
			if err := d.skip(stored, crc); err != nil {
				return nil, err
			}
			continue
		}
		if want != 0 && raw != want {
			return nil, &FormatError{at, fmt.Sprintf("%s section of %d bytes for a grid of %d cells, which needs %d", tag, raw, cells, want)}
		}
		payload, err := d.section(at, tag, codec, stored, raw, crc)
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagHead:
			if err := json.Unmarshal(payload, &p.Header); err != nil {
				return nil, &FormatError{at, "header: " + err.Error()}
			}
			if cells, err = p.checkHeader(at); err != nil {
				return nil, err
			}
		case tagElev:
			p.Elev = decodeElev(payload)
		case tagNdat:
			p.Nodata = decodeNodata(payload)[:cells]
		}
	}
}

// maxPartJSON bounds a partial header's raw length: up to 1024 outputs,
// each with a store header.
const maxPartJSON = 16 << 20

// MaxShards bounds a sharded bake's shard count, on writing and on
// reading a partial file.
const MaxShards = 1 << 16

// ValidLabel reports whether label can name an output of a sharded bake: 1
// to 64 of A–Z, a–z, 0–9, '.', '_', '+' and '-', not starting with '.' or
// '-'. The join derives file names from labels, so none may hold a path
// separator or climb out of a folder.
func ValidLabel(label string) bool {
	if len(label) == 0 || len(label) > 64 || label[0] == '.' || label[0] == '-' {
		return false
	}
	for _, c := range []byte(label) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// checkHeader checks what the reader itself relies on and returns the
// grid's cell count.
func (p *PartReader) checkHeader(at int64) (uint64, error) {
	h := &p.Header
	switch {
	case h.Shards < 1 || h.Shards > MaxShards || h.Shard < 0 || h.Shard >= h.Shards:
		return 0, &FormatError{at, fmt.Sprintf("shard %d of %d (at most %d shards)", h.Shard, h.Shards, MaxShards)}
	case len(h.Outputs) == 0 || len(h.Outputs) > 1024:
		return 0, &FormatError{at, fmt.Sprintf("%d outputs", len(h.Outputs))}
	case h.First < 0 || h.First > h.Last || h.Level < 0:
		return 0, &FormatError{at, fmt.Sprintf("quads %d to %d of level %d", h.First, h.Last, h.Level)}
	}
	seen := map[string]bool{}
	for _, o := range h.Outputs {
		if !ValidLabel(o.Label) || seen[o.Label] {
			return 0, &FormatError{at, fmt.Sprintf("output label %.80q: want a unique name of 1 to 64 letters, digits, '.', '_', '+', '-'", o.Label)}
		}
		seen[o.Label] = true
		if _, _, err := o.Store.check(-1); err != nil {
			return 0, &FormatError{at, "header of output " + o.Label + ": " + err.Error()}
		}
	}
	return uint64(h.Outputs[0].Store.Width) * uint64(h.Outputs[0].Store.Height), nil
}

// read reads k bytes of the QUAD section into p.buf.
func (p *PartReader) read(k uint64) ([]byte, error) {
	if k > p.left {
		return nil, &FormatError{p.d.off, fmt.Sprintf("QUAD record needs %d bytes, %d left in the section", k, p.left)}
	}
	if uint64(cap(p.buf)) < k {
		p.buf = make([]byte, k)
	}
	b := p.buf[:k]
	if err := p.d.full(b); err != nil {
		return nil, err
	}
	p.left -= k
	p.crc = crc32.Update(p.crc, castagnoli, b)
	return b, nil
}

// tree reads one tree record into t, reusing its memory.
func (p *PartReader) tree(t *PartTree) error {
	at := p.d.off
	b, err := p.read(treeFixed)
	if err != nil {
		return err
	}
	n, nodes := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	words := (uint64(n) + 31) / 32
	if n == 0 || nodes > n || 8*words > p.left {
		return &FormatError{at, fmt.Sprintf("tree of %d codes and %d nodes with %d bytes left", n, nodes, p.left)}
	}
	if b, err = p.read(8 * words); err != nil {
		return err
	}
	t.N, t.Nodes = int(n), int(nodes)
	t.Codes = t.Codes[:0]
	for i := range words {
		t.Codes = append(t.Codes, binary.LittleEndian.Uint64(b[8*i:]))
	}
	return nil
}

// Next reads the next quad record. The record and its trees are valid until
// the next call. After the last record it checks the QUAD checksum, reads
// the statistics (Stats) and the end marker, and returns io.EOF. Errors are
// *PartError with the byte offset.
func (p *PartReader) Next() (*PartQuad, error) {
	q, err := p.next()
	return q, partError(err)
}

func (p *PartReader) next() (*PartQuad, error) {
	if p.end != nil {
		return nil, p.end
	}
	if p.left == 0 {
		p.end = p.finish()
		return nil, p.end
	}
	at := p.d.off
	b, err := p.read(8)
	if err != nil {
		return nil, err
	}
	p.rec.Q = int(binary.LittleEndian.Uint32(b))
	flags := binary.LittleEndian.Uint32(b[4:])
	if flags&^rootFlag != 0 {
		return nil, &FormatError{at, fmt.Sprintf("QUAD record flags %#x", flags)}
	}
	for i := range p.rec.Trees {
		if err := p.tree(&p.rec.Trees[i]); err != nil {
			return nil, err
		}
	}
	p.rec.Root = nil
	if flags&rootFlag != 0 {
		if err := p.tree(&p.root); err != nil {
			return nil, err
		}
		p.rec.Root = &p.root
	}
	return &p.rec, nil
}

// finish checks the QUAD checksum and reads STAT and END.
func (p *PartReader) finish() error {
	if p.crc != p.want {
		return &FormatError{p.quadAt, "QUAD checksum mismatch: the file is corrupt"}
	}
	for {
		at := p.d.off
		tag, codec, stored, raw, crc, err := p.d.sectionHeader()
		if err != nil {
			return err
		}
		switch tag {
		case tagStat:
			if p.Stats.Outputs != nil {
				return &FormatError{at, "section \"STAT\" twice"}
			}
			if raw > maxPartJSON {
				return &FormatError{at, fmt.Sprintf("STAT section of %d bytes: more than the %d partial statistics take", raw, maxPartJSON)}
			}
		case tagEnd:
			if raw != 0 {
				return &FormatError{at, "END section with a payload"}
			}
		default:
			if err := p.d.skip(stored, crc); err != nil {
				return err
			}
			continue
		}
		payload, err := p.d.section(at, tag, codec, stored, raw, crc)
		if err != nil {
			return err
		}
		switch tag {
		case tagStat:
			if err := json.Unmarshal(payload, &p.Stats); err != nil {
				return &FormatError{at, "statistics: " + err.Error()}
			}
			if len(p.Stats.Outputs) != len(p.Header.Outputs) {
				return &FormatError{at, fmt.Sprintf("statistics for %d outputs, header names %d", len(p.Stats.Outputs), len(p.Header.Outputs))}
			}
		case tagEnd:
			if p.Stats.Outputs == nil {
				return &FormatError{at, "no STAT section"}
			}
			if err := p.d.end(); err != nil {
				return err
			}
			return io.EOF
		}
	}
}
