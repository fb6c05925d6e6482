package compress

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// IndexSpill is where a writer keeps its per-quad index entries until
// Close instead of in memory (SetIndexSpill): a file written from its
// start, in the order the quads are added, and read back at Close. An
// *os.File opened for reading and writing serves; the caller removes it
// after Close. A coded store's index takes 8 bytes per quad and a flat
// one's 16, per output: 180 and 360 MB on a 4097² map.
type IndexSpill interface {
	io.ReaderAt
	io.WriterAt
}

// indexField is one field of a per-quad index: quad q's value lies at
// byte base + stride·q of the payload, width bytes, little-endian.
type indexField struct {
	base, stride int64
	width        int
}

// quadIndex is a writer's per-quad index payload of n bytes and the set
// of quads put (a bit each). In memory the payload is itself, allocated
// when first written. Spilled, each put appends a record — the quad (4
// bytes) and its fields' values — to the spill file, and each reads the
// records back once per indexChunk bytes of payload, so that a writer
// holds 1 bit per quad and its buffers, however many quads it has.
type quadIndex struct {
	quads  int
	set    []uint64 // bit q: quad q put
	n      int64
	fields []indexField
	mem    []byte
	spill  IndexSpill
	log    *bufio.Writer
	logged int64 // bytes of records in the spill file
	rec    []byte
}

// indexChunk is the payload a spilled index assembles at a time at Close
// (a multiple of 8, so that no field straddles two; tests make it small).
var indexChunk int64 = 64 << 20

// newQuadIndex returns the in-memory index of quads quads with fields:
// its payload ends with the last quad's last field.
func newQuadIndex(quads int, fields ...indexField) *quadIndex {
	x := &quadIndex{quads: quads, set: make([]uint64, (quads+63)/64), fields: fields}
	for _, f := range fields {
		x.n = max(x.n, f.base+f.stride*int64(quads-1)+int64(f.width))
	}
	return x
}

// has reports whether quad q was put.
func (x *quadIndex) has(q int) bool { return x.set[q>>6]&(1<<(q&63)) != 0 }

// missing returns the first quad never put, −1 when every one was.
func (x *quadIndex) missing() int {
	for q := range x.quads {
		if !x.has(q) {
			return q
		}
	}
	return -1
}

// put sets quad q's fields to vals (one per field) and marks q put.
func (x *quadIndex) put(q int, vals ...uint64) error {
	x.set[q>>6] |= 1 << (q & 63)
	if x.log == nil {
		if x.mem == nil {
			x.mem = make([]byte, x.n)
		}
		for i, f := range x.fields {
			putUint(x.mem[f.base+f.stride*int64(q):], f.width, vals[i])
		}
		return nil
	}
	x.rec = binary.LittleEndian.AppendUint32(x.rec[:0], uint32(q))
	for i, f := range x.fields {
		var zero [8]byte
		n := len(x.rec)
		x.rec = append(x.rec, zero[:f.width]...)
		putUint(x.rec[n:], f.width, vals[i])
	}
	x.logged += int64(len(x.rec))
	_, err := x.log.Write(x.rec)
	return err
}

// setSpill moves the index to sp: the entries put so far are logged there,
// and so is every later one.
func (x *quadIndex) setSpill(sp IndexSpill) error {
	if x.log != nil {
		return fmt.Errorf("compress: the index spills already")
	}
	if x.quads > math.MaxUint32 {
		return fmt.Errorf("compress: %d quads: a spilled index numbers them in 32 bits", x.quads)
	}
	x.spill, x.log = sp, bufio.NewWriterSize(io.NewOffsetWriter(sp, 0), 1<<18)
	mem := x.mem
	x.mem = nil
	if mem == nil {
		return nil
	}
	vals := make([]uint64, len(x.fields))
	for q := range int64(x.quads) {
		if !x.has(int(q)) {
			continue
		}
		for i, f := range x.fields {
			vals[i] = getUint(mem[f.base+f.stride*q:], f.width)
		}
		if err := x.put(int(q), vals...); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn with the payload, in order, whole or in chunks of at most
// indexChunk bytes (valid until fn returns). Quads never put read as 0.
func (x *quadIndex) each(fn func(p []byte) error) error {
	if x.log == nil {
		return fn(x.bytes())
	}
	if err := x.log.Flush(); err != nil {
		return err
	}
	recSize := int64(4)
	for _, f := range x.fields {
		recSize += int64(f.width)
	}
	chunk := make([]byte, min(x.n, indexChunk))
	in := make([]byte, (1<<20)/recSize*recSize)
	for lo := int64(0); lo < x.n; lo += indexChunk {
		hi := min(lo+indexChunk, x.n)
		c := chunk[:hi-lo]
		clear(c)
		for at := int64(0); at < x.logged; at += int64(len(in)) {
			b := in[:min(int64(len(in)), x.logged-at)]
			if _, err := x.spill.ReadAt(b, at); err != nil {
				return fmt.Errorf("compress: reading the index back from its spill file: %w", err)
			}
			for ; len(b) >= int(recSize); b = b[recSize:] {
				q := int64(binary.LittleEndian.Uint32(b))
				v := b[4:]
				for _, f := range x.fields {
					if off := f.base + f.stride*q; off >= lo && off < hi {
						copy(c[off-lo:off-lo+int64(f.width)], v[:f.width])
					}
					v = v[f.width:]
				}
			}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// bytes returns the payload in memory (nil when it spills).
func (x *quadIndex) bytes() []byte {
	if x.log != nil {
		return nil
	}
	if x.mem == nil {
		x.mem = make([]byte, x.n)
	}
	return x.mem
}

func putUint(b []byte, width int, v uint64) {
	switch width {
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	default:
		panic("compress: index field width")
	}
}

func getUint(b []byte, width int) uint64 {
	switch width {
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	panic("compress: index field width")
}

// indexSection writes x's payload as a raw streamed section tag (its
// header written back at end: the caller passes the returned stream).
func (w *sectionWriter) indexSection(tag string, x *quadIndex) (*streamed, error) {
	s, err := w.stream(tag)
	if err != nil {
		return nil, err
	}
	if err := x.each(func(p []byte) error { return w.put(s, p) }); err != nil {
		return nil, err
	}
	return s, w.close(s)
}
