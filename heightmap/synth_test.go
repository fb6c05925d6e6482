package heightmap

import (
	"math"
	"testing"
)

func TestSyntheticDeterministic(t *testing.T) {
	for _, kind := range []string{Hills, Urban} {
		t.Run(kind, func(t *testing.T) {
			o := SynthOptions{Kind: kind, Width: 70, Height: 50, CellSize: 5, Relief: 80, Seed: 7}
			a, err := Synthetic(o)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Synthetic(o)
			o.Seed = 8
			c, _ := Synthetic(o)
			same, diff := true, false
			for i := range a.Elev {
				same = same && a.Elev[i] == b.Elev[i]
				diff = diff || a.Elev[i] != c.Elev[i]
			}
			if !same || !diff {
				t.Errorf("same seed equal: %v; other seed differs: %v", same, diff)
			}
			lo, hi := a.MinMax()
			if lo < 0 || hi > 80+4+1e-3 || hi-lo < 20 {
				t.Errorf("heights %v–%v m for relief 80", lo, hi)
			}
		})
	}
	if _, err := Synthetic(SynthOptions{Kind: "moon", Width: 4, Height: 4, CellSize: 1, Relief: 1}); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestDemoTerrainsAreReproducible checks that data/ holds what the generator
// makes with the options the Makefile's synth target uses.
func TestDemoTerrainsAreReproducible(t *testing.T) {
	tests := []struct {
		file string
		o    SynthOptions
	}{
		{"../data/demo-hills.tif", SynthOptions{Kind: Hills, Width: 256, Height: 256, CellSize: 10, Relief: 300, Seed: 1}},
		{"../data/demo-urban.tif", SynthOptions{Kind: Urban, Width: 256, Height: 256, CellSize: 2, Relief: 60, Seed: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := Load(tc.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := Synthetic(tc.o)
			if got.Width != want.Width || got.Height != want.Height || got.Dx != want.Dx || got.CRSName != "EPSG:32619" {
				t.Fatalf("%d×%d dx %g %s", got.Width, got.Height, got.Dx, got.CRSName)
			}
			for i := range want.Elev {
				if math.Abs(float64(got.Elev[i]-want.Elev[i])) > 1e-3 {
					t.Fatalf("cell %d: file %v, generator %v", i, got.Elev[i], want.Elev[i])
				}
			}
		})
	}
}
