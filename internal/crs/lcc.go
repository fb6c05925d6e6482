package crs

import (
	"fmt"
	"math"
)

// lcc is the ellipsoidal Lambert Conformal Conic projection with one or
// two standard parallels (IOGP Guidance Note 7-2, §3.2.1).
type lcc struct {
	e, n, aF, r0 float64 // aF = a·F·k0, metres
}

func newLCC(c *CRS) (*lcc, error) {
	el := c.Datum.Ellipsoid
	f := 0.0
	if el.InvF > 0 {
		f = 1 / el.InvF
	}
	p := &lcc{e: math.Sqrt(f * (2 - f))}
	rad := math.Pi / 180
	phi0 := c.LatOrigin * rad
	var m1, t1 float64
	k0 := 1.0
	if c.Method == LambertConic2SP {
		phi1, phi2 := c.StdParallel1*rad, c.StdParallel2*rad
		m1, t1 = p.m(phi1), p.t(phi1)
		m2, t2 := p.m(phi2), p.t(phi2)
		if phi1 == phi2 {
			p.n = math.Sin(phi1)
		} else {
			p.n = (math.Log(m1) - math.Log(m2)) / (math.Log(t1) - math.Log(t2))
		}
	} else {
		m1, t1 = p.m(phi0), p.t(phi0)
		p.n, k0 = math.Sin(phi0), c.Scale
	}
	if !(math.Abs(p.n) > 1e-10) || math.IsNaN(p.n) {
		return nil, fmt.Errorf("%w: Lambert Conformal Conic with its cone flat (standard parallels %g and %g)", ErrUnsupported, c.StdParallel1, c.StdParallel2)
	}
	p.aF = el.A * m1 / (p.n * math.Pow(t1, p.n)) * k0
	p.r0 = p.aF * math.Pow(p.t(phi0), p.n)
	return p, nil
}

func (p *lcc) m(phi float64) float64 {
	s := p.e * math.Sin(phi)
	return math.Cos(phi) / math.Sqrt(1-s*s)
}

func (p *lcc) t(phi float64) float64 {
	s := p.e * math.Sin(phi)
	return math.Tan(math.Pi/4-phi/2) / math.Pow((1-s)/(1+s), p.e/2)
}

func (p *lcc) forward(lam, phi float64) (x, y float64) {
	r := 0.0
	if math.Abs(phi) < math.Pi/2 || phi*p.n < 0 {
		r = p.aF * math.Pow(p.t(phi), p.n)
	}
	th := p.n * lam
	return r * math.Sin(th), p.r0 - r*math.Cos(th)
}

func (p *lcc) inverse(x, y float64) (lam, phi float64) {
	dy := p.r0 - y
	r := math.Copysign(math.Hypot(x, dy), p.n)
	th := math.Atan2(x, dy)
	if p.n < 0 {
		th = math.Atan2(-x, -dy)
	}
	lam = th / p.n
	if r == 0 {
		return lam, math.Copysign(math.Pi/2, p.n)
	}
	t := math.Pow(r/p.aF, 1/p.n)
	phi = math.Pi/2 - 2*math.Atan(t)
	for range 15 {
		s := p.e * math.Sin(phi)
		next := math.Pi/2 - 2*math.Atan(t*math.Pow((1-s)/(1+s), p.e/2))
		if math.Abs(next-phi) < 1e-14 {
			return lam, next
		}
		phi = next
	}
	return lam, phi
}

// webMercator is EPSG:3857: spherical Mercator equations on WGS 84's
// semi-major axis, applied to WGS 84 latitudes.
type webMercator struct{}

const webR = 6378137

func (webMercator) forward(lam, phi float64) (x, y float64) {
	return webR * lam, webR * math.Log(math.Tan(math.Pi/4+phi/2))
}

func (webMercator) inverse(x, y float64) (lam, phi float64) {
	return x / webR, math.Atan(math.Sinh(y / webR))
}
