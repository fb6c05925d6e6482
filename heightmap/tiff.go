package heightmap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/image/tiff/lzw"
)

// TIFFError reports a TIFF or BigTIFF file that cannot be read: what is
// wrong and the byte offset in the file where it was found. It wraps
// ErrNotRaster.
type TIFFError struct {
	Offset int64
	Msg    string
}

func (e *TIFFError) Error() string { return fmt.Sprintf("TIFF: %s (byte offset %d)", e.Msg, e.Offset) }

// Unwrap returns ErrNotRaster.
func (e *TIFFError) Unwrap() error { return ErrNotRaster }

func tiffErr(off int64, format string, args ...any) error {
	return &TIFFError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// TIFF tags read (TIFF 6.0; GeoTIFF 1.1; GDAL's private tags).
const (
	tagWidth           = 256
	tagHeight          = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagPlanarConfig    = 284
	tagPredictor       = 317
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325
	tagSampleFormat    = 339
	tagPixelScale      = 33550
	tagTiepoint        = 33922
	tagTransformation  = 34264
	tagGeoKeys         = 34735
	tagGeoDoubles      = 34736
	tagGeoASCII        = 34737
	tagGDALMetadata    = 42112
	tagGDALNodata      = 42113
)

// Compressions read: none, LZW, Deflate (Adobe's and the old code),
// PackBits and GDAL's ZSTD.
const (
	compNone     = 1
	compLZW      = 5
	compDeflate  = 8
	compPackBits = 32773
	compDeflate2 = 32946
	compZSTD     = 50000
)

// tiffEntry is an IFD entry: its type, value count and the file offset of
// its values (inside the entry when they fit).
type tiffEntry struct {
	typ   uint16
	count uint64
	off   int64
	at    int64 // the entry's own offset, for errors
}

// tiffImage is the first image of a TIFF or BigTIFF file.
type tiffImage struct {
	r     io.ReaderAt
	size  int64
	order binary.ByteOrder
	tags  map[uint16]tiffEntry

	width, height int
	bits, format  int // bits per sample; SampleFormat 1 uint, 2 int, 3 float
	spp, planar   int
	compression   int
	predictor     int
	tiled         bool
	chunkW        int // tile width, or the image width for strips
	chunkH        int // tile length, or rows per strip
	across, down  int // chunks per row of chunks, rows of chunks (one plane)
	offsets       []uint64
	counts        []uint64
}

var tiffTypeSize = map[uint16]int{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 16: 8, 17: 8, 18: 8}

// openTIFF reads the header and the first IFD of a TIFF or BigTIFF file
// and checks the image's layout: the declared size, sample type,
// compression and chunk tables, before any pixel is read.
func openTIFF(r io.ReaderAt, size int64) (*tiffImage, error) {
	var h [16]byte
	if size < 8 {
		return nil, tiffErr(0, "file of %d bytes is shorter than a TIFF header", size)
	}
	if _, err := r.ReadAt(h[:min(16, size)], 0); err != nil && err != io.EOF {
		return nil, err
	}
	t := &tiffImage{r: r, size: size, tags: map[uint16]tiffEntry{}}
	switch string(h[:2]) {
	case "II":
		t.order = binary.LittleEndian
	case "MM":
		t.order = binary.BigEndian
	default:
		return nil, tiffErr(0, "no TIFF byte-order mark (II or MM)")
	}
	var ifd uint64
	big := false
	switch t.order.Uint16(h[2:]) {
	case 42:
		ifd = uint64(t.order.Uint32(h[4:]))
	case 43:
		if size < 16 || t.order.Uint16(h[4:]) != 8 || t.order.Uint16(h[6:]) != 0 {
			return nil, tiffErr(2, "a BigTIFF header with offsets other than 8 bytes")
		}
		big = true
		ifd = t.order.Uint64(h[8:])
	default:
		return nil, tiffErr(2, "version %d is neither TIFF (42) nor BigTIFF (43)", t.order.Uint16(h[2:]))
	}
	if err := t.readIFD(ifd, big); err != nil {
		return nil, err
	}
	return t, t.layout()
}

func (t *tiffImage) readIFD(ifd uint64, big bool) error {
	countSize, entrySize, valSize := 2, 12, 4
	if big {
		countSize, entrySize, valSize = 8, 20, 8
	}
	if ifd < 8 || ifd > uint64(t.size)-uint64(countSize) { // size ≥ 8 > countSize
		return tiffErr(4, "first image directory at %d, past the file's %d bytes", ifd, t.size)
	}
	var cb [8]byte
	if _, err := t.r.ReadAt(cb[:countSize], int64(ifd)); err != nil {
		return tiffErr(int64(ifd), "reading the image directory: %v", err)
	}
	var n uint64
	if big {
		n = t.order.Uint64(cb[:])
	} else {
		n = uint64(t.order.Uint16(cb[:]))
	}
	start := int64(ifd) + int64(countSize)
	if n == 0 || n > 4096 || uint64(start)+n*uint64(entrySize) > uint64(t.size) {
		return tiffErr(int64(ifd), "image directory of %d entries does not fit in the file", n)
	}
	buf := make([]byte, int(n)*entrySize)
	if _, err := t.r.ReadAt(buf, start); err != nil {
		return tiffErr(start, "reading the image directory: %v", err)
	}
	for i := range int(n) {
		e := buf[i*entrySize:]
		at := start + int64(i*entrySize)
		tag, typ := t.order.Uint16(e), t.order.Uint16(e[2:])
		var count, val uint64
		if big {
			count, val = t.order.Uint64(e[4:]), t.order.Uint64(e[12:])
		} else {
			count, val = uint64(t.order.Uint32(e[4:])), uint64(t.order.Uint32(e[8:]))
		}
		sz, ok := tiffTypeSize[typ]
		if !ok {
			continue // an unknown type: TIFF readers skip the entry
		}
		if count > uint64(t.size) || count*uint64(sz) > uint64(t.size) {
			return tiffErr(at, "tag %d declares %d values, more than the file holds", tag, count)
		}
		// The value field follows the tag, type and count (whose size
		// is the value field's: 4 bytes, 8 in BigTIFF).
		ent := tiffEntry{typ: typ, count: count, at: at, off: at + 4 + int64(valSize)}
		if count*uint64(sz) > uint64(valSize) {
			if val > uint64(t.size) || val+count*uint64(sz) > uint64(t.size) {
				return tiffErr(at, "tag %d's %d values at %d lie past the end of the file (%d bytes)", tag, count, val, t.size)
			}
			ent.off = int64(val)
		}
		t.tags[tag] = ent
	}
	return nil
}

// raw returns the bytes of a tag's values, nil when the tag is absent.
func (t *tiffImage) raw(tag uint16) ([]byte, tiffEntry, error) {
	e, ok := t.tags[tag]
	if !ok {
		return nil, e, nil
	}
	b := make([]byte, int(e.count)*tiffTypeSize[e.typ])
	if _, err := t.r.ReadAt(b, e.off); err != nil {
		return nil, e, tiffErr(e.off, "reading tag %d: %v", tag, err)
	}
	return b, e, nil
}

// uints returns an integer tag's values.
func (t *tiffImage) uints(tag uint16) ([]uint64, error) {
	b, e, err := t.raw(tag)
	if b == nil || err != nil {
		return nil, err
	}
	v := make([]uint64, e.count)
	for i := range v {
		switch e.typ {
		case 1, 7:
			v[i] = uint64(b[i])
		case 3:
			v[i] = uint64(t.order.Uint16(b[2*i:]))
		case 4:
			v[i] = uint64(t.order.Uint32(b[4*i:]))
		case 16, 18:
			v[i] = t.order.Uint64(b[8*i:])
		default:
			return nil, tiffErr(e.at, "tag %d has type %d, not an unsigned integer", tag, e.typ)
		}
	}
	return v, nil
}

// floats returns a numeric tag's values as float64.
func (t *tiffImage) floats(tag uint16) ([]float64, error) {
	b, e, err := t.raw(tag)
	if b == nil || err != nil {
		return nil, err
	}
	v := make([]float64, e.count)
	for i := range v {
		switch e.typ {
		case 11:
			v[i] = float64(math.Float32frombits(t.order.Uint32(b[4*i:])))
		case 12:
			v[i] = math.Float64frombits(t.order.Uint64(b[8*i:]))
		case 3:
			v[i] = float64(t.order.Uint16(b[2*i:]))
		case 4:
			v[i] = float64(t.order.Uint32(b[4*i:]))
		default:
			return nil, tiffErr(e.at, "tag %d has type %d, not a number", tag, e.typ)
		}
	}
	return v, nil
}

// ascii returns an ASCII tag's text up to its first NUL.
func (t *tiffImage) ascii(tag uint16) (string, error) {
	b, _, err := t.raw(tag)
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), err
}

// one returns a single-valued integer tag, def when absent.
func (t *tiffImage) one(tag uint16, def int) (int, error) {
	v, err := t.uints(tag)
	if err != nil || v == nil {
		return def, err
	}
	if len(v) == 0 || v[0] > math.MaxInt32 {
		return 0, tiffErr(t.tags[tag].at, "tag %d has no usable value", tag)
	}
	return int(v[0]), nil
}

// layout reads and checks the image's size, samples, compression and
// chunk tables.
func (t *tiffImage) layout() error {
	var err error
	get := func(tag uint16, def int, v *int) {
		if err == nil {
			*v, err = t.one(tag, def)
		}
	}
	get(tagWidth, 0, &t.width)
	get(tagHeight, 0, &t.height)
	get(tagSamplesPerPixel, 1, &t.spp)
	get(tagPlanarConfig, 1, &t.planar)
	get(tagCompression, 1, &t.compression)
	get(tagPredictor, 1, &t.predictor)
	get(tagSampleFormat, 1, &t.format)
	if err != nil {
		return err
	}
	bits, err := t.uints(tagBitsPerSample)
	if err != nil {
		return err
	}
	t.bits = 1
	for i, b := range bits {
		if i > 0 && int(b) != t.bits {
			return tiffErr(t.tags[tagBitsPerSample].at, "samples of different sizes (%d and %d bits) in one pixel", t.bits, b)
		}
		t.bits = int(b)
	}
	at := func(tag uint16) int64 { return t.tags[tag].at }
	switch {
	case t.width <= 0 || t.height <= 0:
		return fmt.Errorf("%w: TIFF of %d×%d cells", ErrEmpty, t.width, t.height)
	case t.spp < 1 || t.spp > 1024:
		return tiffErr(at(tagSamplesPerPixel), "%d samples per pixel", t.spp)
	case t.planar != 1 && t.planar != 2:
		return tiffErr(at(tagPlanarConfig), "planar configuration %d (want 1 or 2)", t.planar)
	case t.bits != 8 && t.bits != 16 && t.bits != 32 && t.bits != 64:
		return tiffErr(at(tagBitsPerSample), "%d-bit samples: heightmaps here are read with 8, 16, 32 or 64 bits a sample", t.bits)
	case t.format < 1 || t.format > 3 || t.format == 3 && t.bits < 32:
		return tiffErr(at(tagSampleFormat), "sample format %d with %d bits (want unsigned or signed integers, or 32- or 64-bit floats)", t.format, t.bits)
	case t.predictor < 1 || t.predictor > 3 || t.predictor == 3 && t.format != 3:
		return tiffErr(at(tagPredictor), "predictor %d for sample format %d", t.predictor, t.format)
	}
	switch t.compression {
	case compNone, compLZW, compDeflate, compDeflate2, compPackBits, compZSTD:
	default:
		return tiffErr(at(tagCompression), "compression %d is not read without GDAL (this build reads none, LZW, Deflate, PackBits and ZSTD); convert it with gdal_translate -co COMPRESS=DEFLATE, or use a build with GDAL", t.compression)
	}
	offTag, cntTag := uint16(tagStripOffsets), uint16(tagStripByteCounts)
	if _, ok := t.tags[tagTileWidth]; ok {
		t.tiled, offTag, cntTag = true, tagTileOffsets, tagTileByteCounts
		get(tagTileWidth, 0, &t.chunkW)
		get(tagTileLength, 0, &t.chunkH)
		if err == nil && (t.chunkW <= 0 || t.chunkH <= 0 || t.chunkW%16 != 0 || t.chunkH%16 != 0) {
			return tiffErr(at(tagTileWidth), "tiles of %d×%d cells (want positive multiples of 16)", t.chunkW, t.chunkH)
		}
	} else {
		// RowsPerStrip beyond the height (2³²−1, as many writers put it)
		// means one strip.
		t.chunkW, t.chunkH = t.width, t.height
		rps, rerr := t.uints(tagRowsPerStrip)
		switch {
		case rerr != nil:
			err = rerr
		case len(rps) > 0 && rps[0] == 0:
			return tiffErr(at(tagRowsPerStrip), "0 rows per strip")
		case len(rps) > 0:
			t.chunkH = int(min(rps[0], uint64(t.height)))
		}
	}
	if err != nil {
		return err
	}
	// A chunk's buffer is allocated whole: tiles may overhang the image,
	// but not beyond four times its bytes (or 8 MiB for a small image).
	bps := int64(t.bits / 8)
	if chunk, image := int64(t.chunkW)*int64(t.chunkH)*int64(t.spp)*bps, int64(t.width)*int64(t.height)*int64(t.spp)*bps; chunk > max(4*image, 8<<20) {
		return tiffErr(at(tagTileWidth), "tiles of %d×%d cells for a %d×%d image", t.chunkW, t.chunkH, t.width, t.height)
	}
	t.across = (t.width + t.chunkW - 1) / t.chunkW
	t.down = (t.height + t.chunkH - 1) / t.chunkH
	want := int64(t.across) * int64(t.down)
	if t.planar == 2 {
		want *= int64(t.spp)
	}
	if t.offsets, err = t.uints(offTag); err != nil {
		return err
	}
	if t.counts, err = t.uints(cntTag); err != nil {
		return err
	}
	kind, one := "strips", "strip"
	if t.tiled {
		kind, one = "tiles", "tile"
	}
	switch {
	case t.offsets == nil:
		return tiffErr(8, "no %s offsets", one)
	case int64(len(t.offsets)) != want:
		return tiffErr(t.tags[offTag].at, "%d %s offsets for a %d×%d image in %d×%d %s (want %d)", len(t.offsets), one, t.width, t.height, t.chunkW, t.chunkH, kind, want)
	case t.counts == nil:
		return tiffErr(t.tags[offTag].at, "no %s byte counts", one)
	case len(t.counts) != len(t.offsets):
		return tiffErr(t.tags[cntTag].at, "%d %s byte counts for %d offsets", len(t.counts), one, len(t.offsets))
	}
	for i := range t.offsets {
		if t.counts[i] > uint64(t.size) || t.offsets[i] > uint64(t.size)-t.counts[i] {
			return tiffErr(t.tags[offTag].at, "%s %d (%d bytes at %d) lies past the end of the file (%d bytes)", one, i, t.counts[i], t.offsets[i], t.size)
		}
	}
	return nil
}

// dataType names the sample type as GDAL does.
func (t *tiffImage) dataType() string {
	switch {
	case t.format == 3:
		return fmt.Sprintf("Float%d", t.bits)
	case t.bits == 8 && t.format == 2:
		return "Int8"
	case t.bits == 8:
		return "Byte"
	case t.format == 2:
		return fmt.Sprintf("Int%d", t.bits)
	}
	return fmt.Sprintf("UInt%d", t.bits)
}

// readBand reads sample band (from 0) of the cells of win as float32,
// row-major, decoding the chunks that cross it on every CPU.
func (t *tiffImage) readBand(band int, win Window) ([]float32, error) {
	out := make([]float32, win.Width*win.Height)
	c0, c1 := win.Col/t.chunkW, (win.Col+win.Width-1)/t.chunkW
	r0, r1 := win.Row/t.chunkH, (win.Row+win.Height-1)/t.chunkH
	var jobs []int
	for cr := r0; cr <= r1; cr++ {
		for cc := c0; cc <= c1; cc++ {
			jobs = append(jobs, cr*t.across+cc)
		}
	}
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := &chunkDecoder{t: t}
			defer d.close()
			for {
				j := int(next.Add(1) - 1)
				if j >= len(jobs) {
					return
				}
				if err := d.chunk(jobs[j], band, win, out); err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(len(jobs)))
					return
				}
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

// chunkDecoder decodes chunks with its own scratch buffers and
// decompressors: one per worker.
type chunkDecoder struct {
	t             *tiffImage
	raw, buf, tmp []byte
	zr            io.ReadCloser
	zd            *zstd.Decoder
}

func (d *chunkDecoder) close() {
	if d.zd != nil {
		d.zd.Close()
	}
}

// chunk decodes chunk k (row of chunks × across + column) of the band's
// plane and converts the cells of it that lie in win into out.
func (d *chunkDecoder) chunk(k, band int, win Window, out []float32) error {
	t := d.t
	sppIn, sample := t.spp, band
	idx := k
	if t.planar == 2 {
		sppIn, sample = 1, 0
		idx = band*t.across*t.down + k
	}
	cc, cr := k%t.across, k/t.across
	rows := t.chunkH
	if !t.tiled {
		rows = min(t.chunkH, t.height-cr*t.chunkH)
	}
	bps := t.bits / 8
	rowBytes := t.chunkW * sppIn * bps
	want := rows * rowBytes
	if cap(d.buf) < want {
		d.buf = make([]byte, want)
	}
	dst := d.buf[:want]
	off, n := int64(t.offsets[idx]), int(t.counts[idx])
	what := "strip"
	if t.tiled {
		what = "tile"
	}
	if n == 0 { // a sparse file's absent chunk: GDAL reads zeros (or nodata)
		clear(dst)
	} else {
		if cap(d.raw) < n {
			d.raw = make([]byte, n)
		}
		raw := d.raw[:n]
		if _, err := t.r.ReadAt(raw, off); err != nil {
			return tiffErr(off, "reading %s %d: %v", what, idx, err)
		}
		if err := d.decompress(raw, dst); err != nil {
			return tiffErr(off, "%s %d: %v", what, idx, err)
		}
	}
	d.unpredict(dst, rows, rowBytes, sppIn)
	// The chunk's cells inside win.
	x0, y0 := cc*t.chunkW, cr*t.chunkH
	ca, cb := max(win.Col, x0), min(win.Col+win.Width, x0+t.chunkW, t.width)
	ra, rb := max(win.Row, y0), min(win.Row+win.Height, y0+rows)
	for r := ra; r < rb; r++ {
		src := dst[(r-y0)*rowBytes+((ca-x0)*sppIn+sample)*bps:]
		t.convert(out[(r-win.Row)*win.Width+ca-win.Col:][:cb-ca], src, sppIn*bps)
	}
	return nil
}

// decompress fills dst from the chunk's compressed bytes; fewer bytes
// than dst holds is an error.
func (d *chunkDecoder) decompress(raw, dst []byte) error {
	short := func(got int) error {
		return fmt.Errorf("decompresses to %d bytes, fewer than its %d cells need (%d bytes)", got, len(dst)/(d.t.bits/8), len(dst))
	}
	switch d.t.compression {
	case compNone:
		if len(raw) < len(dst) {
			return short(len(raw))
		}
		copy(dst, raw)
	case compDeflate, compDeflate2:
		var err error
		if d.zr == nil {
			d.zr, err = zlib.NewReader(bytes.NewReader(raw))
		} else {
			err = d.zr.(zlib.Resetter).Reset(bytes.NewReader(raw), nil)
		}
		if err != nil {
			return fmt.Errorf("Deflate: %v", err)
		}
		if got, err := io.ReadFull(d.zr, dst); err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return short(got)
			}
			return fmt.Errorf("Deflate: %v", err)
		}
	case compLZW:
		zr := lzw.NewReader(bytes.NewReader(raw), lzw.MSB, 8)
		defer zr.Close()
		if got, err := io.ReadFull(zr, dst); err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return short(got)
			}
			return fmt.Errorf("LZW: %v", err)
		}
	case compPackBits:
		if got := unpackBits(raw, dst); got < len(dst) {
			return short(got)
		}
	case compZSTD:
		if d.zd == nil {
			var err error
			// A chunk decodes to len(dst) bytes; the bound keeps a lying
			// frame from allocating more than the raster's size allows.
			if d.zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(2*uint64(len(dst))+64<<20)); err != nil {
				return err
			}
		}
		got, err := d.zd.DecodeAll(raw, dst[:0])
		if err != nil {
			return fmt.Errorf("ZSTD: %v", err)
		}
		if len(got) < len(dst) {
			return short(len(got))
		}
		if &got[0] != &dst[0] {
			copy(dst, got)
		}
	}
	return nil
}

// unpackBits decodes PackBits (TIFF 6.0, section 9) into dst and returns
// the bytes written.
func unpackBits(src, dst []byte) int {
	n := 0
	for i := 0; i < len(src) && n < len(dst); {
		c := int(int8(src[i]))
		i++
		switch {
		case c >= 0:
			k := min(c+1, len(src)-i, len(dst)-n)
			n += copy(dst[n:], src[i:i+k])
			i += c + 1
		case c != -128:
			if i >= len(src) {
				return n
			}
			k := min(1-c, len(dst)-n)
			for j := range k {
				dst[n+j] = src[i]
			}
			n += k
			i++
		}
	}
	return n
}

// unpredict undoes the predictor on a chunk of rows rows of rowBytes
// bytes: horizontal differencing of samples (2) or of byte planes (3,
// floating point, as libtiff writes it). The result is in the file's byte
// order.
func (d *chunkDecoder) unpredict(b []byte, rows, rowBytes, sppIn int) {
	t := d.t
	bps := t.bits / 8
	stride := sppIn * bps // bytes between a sample and the one it predicts
	switch t.predictor {
	case 2:
		for r := range rows {
			row := b[r*rowBytes : (r+1)*rowBytes]
			switch bps {
			case 1:
				for i := stride; i < len(row); i++ {
					row[i] += row[i-stride]
				}
			case 2:
				for i := stride; i < len(row); i += 2 {
					t.order.PutUint16(row[i:], t.order.Uint16(row[i:])+t.order.Uint16(row[i-stride:]))
				}
			case 4:
				for i := stride; i < len(row); i += 4 {
					t.order.PutUint32(row[i:], t.order.Uint32(row[i:])+t.order.Uint32(row[i-stride:]))
				}
			case 8:
				for i := stride; i < len(row); i += 8 {
					t.order.PutUint64(row[i:], t.order.Uint64(row[i:])+t.order.Uint64(row[i-stride:]))
				}
			}
		}
	case 3:
		if cap(d.tmp) < rowBytes {
			d.tmp = make([]byte, rowBytes)
		}
		tmp := d.tmp[:rowBytes]
		n := rowBytes / bps // samples in a row
		// Plane k holds each sample's k-th most significant byte, which
		// goes to byte at[k] of the sample in the file's order.
		var at [8]int
		for k := range bps {
			at[k] = k
			if t.order == binary.LittleEndian {
				at[k] = bps - 1 - k
			}
		}
		for r := range rows {
			row := b[r*rowBytes : (r+1)*rowBytes]
			for i := sppIn; i < len(row); i++ {
				row[i] += row[i-sppIn]
			}
			copy(tmp, row)
			for k := range bps {
				plane := tmp[k*n : (k+1)*n]
				for i, v := range plane {
					row[i*bps+at[k]] = v
				}
			}
		}
	}
}

// convert writes len(dst) samples from src, stride bytes apart, as
// float32.
func (t *tiffImage) convert(dst []float32, src []byte, stride int) {
	o := t.order
	switch {
	case t.format == 3 && t.bits == 32:
		for i := range dst {
			dst[i] = math.Float32frombits(o.Uint32(src[i*stride:]))
		}
	case t.format == 3:
		for i := range dst {
			dst[i] = float32(math.Float64frombits(o.Uint64(src[i*stride:])))
		}
	case t.bits == 8 && t.format == 2:
		for i := range dst {
			dst[i] = float32(int8(src[i*stride]))
		}
	case t.bits == 8:
		for i := range dst {
			dst[i] = float32(src[i*stride])
		}
	case t.bits == 16 && t.format == 2:
		for i := range dst {
			dst[i] = float32(int16(o.Uint16(src[i*stride:])))
		}
	case t.bits == 16:
		for i := range dst {
			dst[i] = float32(o.Uint16(src[i*stride:]))
		}
	case t.bits == 32 && t.format == 2:
		for i := range dst {
			dst[i] = float32(int32(o.Uint32(src[i*stride:])))
		}
	case t.bits == 32:
		for i := range dst {
			dst[i] = float32(o.Uint32(src[i*stride:]))
		}
	case t.format == 2:
		for i := range dst {
			dst[i] = float32(int64(o.Uint64(src[i*stride:])))
		}
	default:
		for i := range dst {
			dst[i] = float32(o.Uint64(src[i*stride:]))
		}
	}
}

// openFile opens path and returns it with its size.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}
