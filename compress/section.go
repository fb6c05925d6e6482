package compress

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"
)

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
	tagTree = "TREE"
	tagTidx = "TIDX"
	tagSums = "SUMS"
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

// File is where a Writer writes: sequential writes, plus writes back at
// the headers of sections streamed before their length was known, and
// reads of what was written, to checksum it again (*os.File is one).
type File interface {
	io.Writer
	io.WriterAt
	io.ReaderAt
}

// sectionWriter writes a file of sections (FORMAT.md) through a buffer,
// counting the offset. With aligned set (format version 5) the file
// header takes 32 bytes, every payload is followed by zeros to the next
// multiple of 32 bytes, and a CRC-32C of every 64 KiB of the file so far
// is kept for the SUMS section.
type sectionWriter struct {
	f       File
	bw      *bufio.Writer
	pos     int64 // bytes written so far
	aligned bool
	sums    []uint32 // CRC-32C of each whole chunk written
	cur     uint32   // of the chunk being written
}

// Chunks of the SUMS section: 64 KiB.
const (
	sumShift = 16
	sumChunk = 1 << sumShift
)

func newSectionWriter(f File) sectionWriter {
	return sectionWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20)}
}

func (w *sectionWriter) write(p []byte) error {
	n, err := w.bw.Write(p)
	if w.aligned {
		w.sum(p[:n])
	}
	w.pos += int64(n)
	return err
}

// sum adds p, written at w.pos, to the chunk checksums.
func (w *sectionWriter) sum(p []byte) {
	at := w.pos
	for len(p) > 0 {
		k := min(int64(len(p)), sumChunk-at%sumChunk)
		w.cur = crc32.Update(w.cur, castagnoli, p[:k])
		at += k
		p = p[k:]
		if at%sumChunk == 0 {
			w.sums = append(w.sums, w.cur)
			w.cur = 0
		}
	}
}

// resum recomputes the checksums of the chunks holding bytes [lo, hi) of
// the file, after they were written back.
func (w *sectionWriter) resum(lo, hi int64) error {
	if err := w.bw.Flush(); err != nil {
		return err
	}
	buf := make([]byte, sumChunk)
	for c := lo / sumChunk; c*sumChunk < hi; c++ {
		n := min(sumChunk, w.pos-c*sumChunk)
		if _, err := w.f.ReadAt(buf[:n], c*sumChunk); err != nil {
			return err
		}
		crc := crc32.Checksum(buf[:n], castagnoli)
		if int(c) < len(w.sums) {
			w.sums[c] = crc
		} else {
			w.cur = crc
		}
	}
	return nil
}

// fileHeader writes the magic and the format version (and, aligned, 20
// zero bytes).
func (w *sectionWriter) fileHeader(magic string, version uint32) error {
	var fh [sectionHeaderSize]byte
	copy(fh[:], magic)
	binary.LittleEndian.PutUint32(fh[8:], version)
	if w.aligned {
		return w.write(fh[:])
	}
	return w.write(fh[:fileHeaderSize])
}

// pad writes zeros to the next multiple of 32 bytes (aligned files).
func (w *sectionWriter) pad() error {
	if !w.aligned || w.pos%32 == 0 {
		return nil
	}
	var z [32]byte
	return w.write(z[:32-w.pos%32])
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
	if err := w.write(stored); err != nil {
		return err
	}
	return w.pad()
}

// streamed is a raw section whose payload is written piece by piece
// (put) and whose header is written back when it ends (close).
type streamed struct {
	tag string
	at  int64 // its header's offset
	n   uint64
	crc uint32
}

// stream starts a streamed raw section.
func (w *sectionWriter) stream(tag string) (*streamed, error) {
	s := &streamed{tag: tag, at: w.pos}
	return s, w.write(sectionHeader(tag, codecRaw, 0, 0, 0))
}

// put appends p to the streamed section s.
func (w *sectionWriter) put(s *streamed, p []byte) error {
	s.crc = crc32.Update(s.crc, castagnoli, p)
	s.n += uint64(len(p))
	return w.write(p)
}

// close ends the streamed section s: its padding now, its header written
// back (and its chunk checksums recomputed) by end.
func (w *sectionWriter) close(s *streamed) error { return w.pad() }

// grid writes the ELEV section and, when nodata is not nil, NDAT.
func (w *sectionWriter) grid(elev []float32, nodata []bool) error {
	// ELEV is raw in aligned files: readers use it in place.
	if err := w.sectionAs(tagElev, elevBytes(elev), !w.aligned); err != nil {
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

// begin writes a store's file header of the given version (5: aligned),
// its header h (HEAD) and its grid (ELEV, NDAT).
func (w *sectionWriter) begin(version uint32, h Header, elev []float32, nodata []bool) error {
	w.aligned = version >= VersionAligned
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

// end writes the statistics st as the STAT section (JSON), writes back the
// headers of the streamed sections, then (aligned) the chunk checksums as
// the SUMS section, the end marker, and flushes.
func (w *sectionWriter) end(st any, streams ...*streamed) error {
	sj, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := w.section(tagStat, sj); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil {
		return err
	}
	for _, s := range streams {
		if _, err := w.f.WriteAt(sectionHeader(s.tag, codecRaw, s.n, s.n, s.crc), s.at); err != nil {
			return err
		}
		if w.aligned {
			if err := w.resum(s.at, s.at+sectionHeaderSize); err != nil {
				return err
			}
		}
	}
	if w.aligned {
		covered := w.pos
		sums := w.sums
		if covered%sumChunk != 0 {
			sums = append(sums, w.cur)
		}
		p := make([]byte, 16, 16+4*len(sums))
		binary.LittleEndian.PutUint32(p, sumShift)
		binary.LittleEndian.PutUint64(p[8:], uint64(covered))
		for _, c := range sums {
			p = binary.LittleEndian.AppendUint32(p, c)
		}
		if err := w.sectionAs(tagSums, p, false); err != nil {
			return err
		}
	}
	if err := w.section(tagEnd, nil); err != nil {
		return err
	}
	return w.bw.Flush()
}

// maxSection bounds a section's declared size, so that a corrupt length
// cannot ask for absurd memory: 64 GiB.
const maxSection = 64 << 30

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

// secHeader is a section header's fields (FORMAT.md).
type secHeader struct {
	tag         string
	codec       uint32
	stored, raw uint64 // payload bytes in the file, and decompressed
	crc         uint32 // of the stored payload
}

// parseSectionHeader checks and decodes the section header h found at
// offset at: its own checksum (a 32-byte header: version 2 on; a 28-byte
// one has none), sizes within maxSection, a zstd section's raw length
// within what zstd can expand, and, when left ≥ 0 (the bytes of input
// after the header), the payload within the input. Every reader parses
// section headers here.
func parseSectionHeader(h []byte, at, left int64) (secHeader, error) {
	if len(h) == sectionHeaderSize && crc32.Checksum(h[:28], castagnoli) != binary.LittleEndian.Uint32(h[28:]) {
		return secHeader{}, &FormatError{at, "section header checksum mismatch: the file is corrupt"}
	}
	sh := secHeader{tag: string(h[:4]), codec: binary.LittleEndian.Uint32(h[4:]), stored: binary.LittleEndian.Uint64(h[8:]),
		raw: binary.LittleEndian.Uint64(h[16:]), crc: binary.LittleEndian.Uint32(h[24:])}
	switch {
	case sh.stored > maxSection || sh.raw > maxSection || sh.codec > codecZstd || (sh.codec == codecRaw && sh.stored != sh.raw):
		return sh, &FormatError{at, fmt.Sprintf("section %q: bad sizes or codec (%d stored, %d raw, codec %d)", sh.tag, sh.stored, sh.raw, sh.codec)}
	case sh.codec == codecZstd && sh.raw > sh.stored*maxZstdRatio:
		return sh, &FormatError{at, fmt.Sprintf("section %q: %d raw bytes from %d stored, more than zstd can expand", sh.tag, sh.raw, sh.stored)}
	case left >= 0 && int64(sh.stored) > left:
		return sh, &FormatError{at, fmt.Sprintf("section %q of %d bytes runs past the end of the %d-byte file: truncated", sh.tag, sh.stored, at+int64(len(h))+left)}
	}
	return sh, nil
}

// payload checks the stored payload p of the section sh at offset at
// against its checksum and returns it, decompressed from zstd into exactly
// sh.raw bytes (the caller has bounded sh.raw).
func payload(at int64, sh secHeader, p []byte) ([]byte, error) {
	if crc32.Checksum(p, castagnoli) != sh.crc {
		return nil, &FormatError{at, fmt.Sprintf("%s section checksum mismatch: the file is corrupt", sh.tag)}
	}
	if sh.codec == codecRaw {
		return p, nil
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(max(2*sh.raw, 1<<20)), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(p, make([]byte, 0, sh.raw))
	if err != nil || uint64(len(out)) != sh.raw {
		return nil, &FormatError{at, fmt.Sprintf("%s section does not decompress to its recorded size", sh.tag)}
	}
	return out, nil
}

// seenSection records section tag, at offset at, in seen and checks the
// order every reader requires: each tag at most once, HEAD first.
func seenSection(seen map[string]bool, tag string, at int64) error {
	if seen[tag] {
		return &FormatError{at, fmt.Sprintf("section %q twice", tag)}
	}
	seen[tag] = true
	if !seen[tagHead] {
		return &FormatError{at, fmt.Sprintf("section %q before the header (HEAD must come first)", tag)}
	}
	return nil
}

// sectionHeader reads and checks one section header (parseSectionHeader).
func (d *decoder) sectionHeader() (tag string, codec uint32, stored, raw uint64, crc uint32, err error) {
	at := d.off
	var h [sectionHeaderSize]byte
	if err = d.full(h[:d.hsize]); err != nil {
		return
	}
	left := int64(-1)
	if d.size >= 0 {
		left = d.size - d.off
	}
	sh, err := parseSectionHeader(h[:d.hsize], at, left)
	return sh.tag, sh.codec, sh.stored, sh.raw, sh.crc, err
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
	return payload(at, secHeader{tag, codec, stored, raw, crc}, p)
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

// ErrNotFile is Open's error for a path that is not a regular file (a
// folder, a device, a pipe).
var ErrNotFile = errors.New("compress: not a regular file")

// Is makes errors.Is(err, ErrNotStore) true for any *FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrNotStore }
