package horizon

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCutSlope: the conversion to a slope per metre is the largest float32
// at most the exact product (aMin for F ≥ 0, aMax below), as
// math.Nextafter32 finds it, on values that round either way, tiny ones
// and the infinities.
func TestCutSlope(t *testing.T) {
	cs := &cutSector{aMin: 1 / 30.000001, aMax: 1 / 29.999}
	rng := rand.New(rand.NewPCG(1, 2))
	values := []float64{0, 1, -1, 1e-45, -1e-45, 1e-300, -1e-300, 3e38, -3e38, math.Inf(-1)}
	for range 100000 {
		values = append(values, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(12)-6)))
	}
	for _, F := range values {
		exact := F * cs.aMin
		if F < 0 {
			exact = F * cs.aMax
		}
		want := float32(exact)
		if float64(want) > exact {
			want = math.Nextafter32(want, float32(math.Inf(-1)))
		}
		if got := cutSlope(F, cs); got != want || float64(got) > exact {
			t.Fatalf("cutSlope(%g) = %g, want %g (exact %g)", F, got, want, exact)
		}
	}
}

// TestCutMin: the least value along a line of samples over [lo, hi] is at
// most the piecewise linear surface's value anywhere in it (sampled
// densely, allowing float32 rounding) and at least the least sample of
// the cells it touches.
func TestCutMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		n := 1 + rng.IntN(12)
		z := make([]float32, n)
		for i := range z {
			z[i] = float32(rng.IntN(5)) + float32(rng.Float64()*1000-500)*float32(rng.IntN(2))
		}
		lo := rng.Float64() * float64(n-1)
		hi := lo + rng.Float64()*(float64(n-1)-lo)
		a, b := int(lo), int(hi)
		g := cutMin(z, a, float32(lo-float64(a)), b, float32(hi-float64(b)))
		floor := z[a]
		for i := a; i <= min(b+1, n-1); i++ {
			floor = min(floor, z[i])
		}
		if g < floor {
			t.Fatalf("%v over [%g, %g]: %g below the least sample %g", z, lo, hi, g, floor)
		}
		for k := 0; k <= 64; k++ {
			y := lo + (hi-lo)*float64(k)/64
			i := min(int(y), n-1)
			v := float64(z[i])
			if i+1 < n {
				v += (y - float64(i)) * (float64(z[i+1]) - float64(z[i]))
			}
			if float64(g) > v+1e-4 {
				t.Fatalf("%v over [%g, %g]: %g above the surface %g at %g", z, lo, hi, g, v, y)
			}
		}
	}
}
