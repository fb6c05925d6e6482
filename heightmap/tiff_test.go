package heightmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBadTIFF: truncated, lying and unsupported TIFFs are refused by the
// reader of builds without GDAL in one line naming the file and what is
// wrong, before any cell is allocated, never with a panic.
func TestBadTIFF(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "tiff", "deflate-pred2.tif"))
	if err != nil {
		t.Fatal(err)
	}
	tf, err := openTIFF(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	// patch returns good with the entry of tag given type, count and value.
	patch := func(tag uint16, typ uint16, count, value uint32) []byte {
		b := bytes.Clone(good)
		at := tf.tags[tag].at
		le.PutUint16(b[at+2:], typ)
		le.PutUint32(b[at+4:], count)
		le.PutUint32(b[at+8:], value)
		return b
	}
	stripAt := tf.tags[tagStripOffsets]
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "shorter than a TIFF header"},
		{"not a TIFF", []byte("GIF89a, a picture of a hill"), "no TIFF byte-order mark"},
		{"truncated", good[:len(good)/2], "past the end of the file"},
		{"strip past the end", patch(tagStripOffsets, 4, 1, uint32(len(good))-4), "past the end of the file"},
		{"2³¹ strips", patch(tagStripOffsets, 4, 1<<31, uint32(stripAt.off)), "more than the file holds"},
		{"strips that do not match", patch(tagRowsPerStrip, 3, 1, 5), "1 strip offsets for a 24×20 image in 24×5 strips (want 4)"},
		{"JPEG", patch(tagCompression, 3, 1, 7), "compression 7 is not read without GDAL"},
		{"sample format", patch(tagSampleFormat, 3, 1, 6), "sample format 6"},
		{"12-bit samples", patch(tagBitsPerSample, 3, 1, 12), "12-bit samples"},
		{"no width", patch(tagWidth, 3, 1, 0), "empty raster"},
		{"a tile of 2³⁰ cells", func() []byte {
			// The strip tags read as a 32768² tile's (2 GiB of Int16),
			// on a 24×20 image.
			b := patch(tagStripOffsets, 4, 1, uint32(stripAt.off))
			le.PutUint16(b[tf.tags[tagStripOffsets].at:], tagTileOffsets)
			le.PutUint16(b[tf.tags[tagStripByteCounts].at:], tagTileByteCounts)
			le.PutUint16(b[tf.tags[tagRowsPerStrip].at:], tagTileWidth)
			le.PutUint16(b[tf.tags[tagRowsPerStrip].at+2:], 4)
			le.PutUint32(b[tf.tags[tagRowsPerStrip].at+8:], 32768)
			le.PutUint16(b[tf.tags[tagPredictor].at:], tagTileLength)
			le.PutUint16(b[tf.tags[tagPredictor].at+2:], 4)
			le.PutUint32(b[tf.tags[tagPredictor].at+8:], 32768)
			return b
		}(), "tiles of 32768×32768 cells for a 24×20 image"},
		{"corrupt data", func() []byte {
			b := bytes.Clone(good)
			for i := range 40 {
				b[int(tf.offsets[0])+2+i] ^= 0x5a
			}
			return b
		}(), "strip 0: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.tif")
			if err := os.WriteFile(path, tc.b, 0o644); err != nil {
				t.Fatal(err)
			}
			g, err := load(path, Options{Check: func(g *Grid) error {
				if g.Width*g.Height > 1<<20 {
					t.Fatalf("a %d×%d grid planned", g.Width, g.Height)
				}
				return nil
			}}, Driver{})
			if err == nil {
				t.Fatalf("read %d×%d cells", g.Width, g.Height)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q", err, tc.want)
			}
			if tc.name != "no width" && !errors.Is(err, ErrNotRaster) {
				t.Fatalf("error %q does not wrap ErrNotRaster", err)
			}
		})
	}
}

// TestRowsPerStripBeyondHeight: RowsPerStrip 2³²−1, as many writers put
// it for an image in one strip, reads as that strip (it was refused as a
// value past 2³¹).
func TestRowsPerStripBeyondHeight(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "tiff", "deflate-pred2.tif"))
	if err != nil {
		t.Fatal(err)
	}
	tf, err := openTIFF(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tf.offsets) != 1 {
		t.Fatalf("the seed has %d strips, want 1", len(tf.offsets))
	}
	want, err := tf.readBand(0, Window{Width: tf.width, Height: tf.height})
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(good)
	at := tf.tags[tagRowsPerStrip].at
	binary.LittleEndian.PutUint16(b[at+2:], 4) // LONG
	binary.LittleEndian.PutUint32(b[at+8:], 1<<32-1)
	tf2, err := openTIFF(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tf2.readBand(0, Window{Width: tf2.width, Height: tf2.height})
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("RowsPerStrip 2³²−1: %v, cells equal %v", err, slices.Equal(got, want))
	}
}
