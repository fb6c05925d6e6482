package heightmap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzGeoTIFF feeds the GeoTIFF reader of builds without GDAL arbitrary
// bytes, seeded with the small GeoTIFFs of testdata/tiff (every
// compression and predictor it reads, tiles, BigTIFF, big-endian, two
// bands): it must return cells or an error, never panic, and never
// allocate beyond the raster's declared size (rasters declaring more than
// 2²² cells are refused here, as a bake's memory check would).
func FuzzGeoTIFF(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "tiff", "*.tif"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tf, err := openTIFF(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			var te *TIFFError
			if !errors.As(err, &te) && !errors.Is(err, ErrEmpty) {
				t.Fatalf("an error other than TIFFError: %v", err)
			}
			return
		}
		if int64(tf.width)*int64(tf.height) > 1<<22 {
			return
		}
		var info RasterInfo
		if err := tf.georef(&info); err != nil {
			return
		}
		win := Window{Width: tf.width, Height: tf.height}
		for band := range tf.spp {
			data, err := tf.readBand(band, win)
			if err == nil && len(data) != tf.width*tf.height {
				t.Fatalf("%d cells for a %d×%d raster", len(data), tf.width, tf.height)
			}
		}
	})
}
