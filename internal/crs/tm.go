package crs

import "math"

// tm is the ellipsoidal Transverse Mercator projection by Krüger's series
// to sixth order in the third flattening n (Karney, "Transverse Mercator
// with an accuracy of a few nanometers", J. Geodesy 85, 2011, eqs. 7–36):
// within 4,000 km of the central meridian it is within 5 nm of the exact
// mapping, as PROJ's default (Poder/Engsager) algorithm is.
type tm struct {
	e      float64    // eccentricity
	k0a    float64    // scale × rectifying radius A, metres
	alpha  [6]float64 // forward series coefficients
	beta   [6]float64 // inverse series coefficients
	northO float64    // the meridian distance of the latitude of origin, metres (scaled)
}

func newTM(c *CRS) *tm {
	el := c.Datum.Ellipsoid
	f := 0.0
	if el.InvF > 0 {
		f = 1 / el.InvF
	}
	n := f / (2 - f)
	n2 := n * n
	n3, n4, n5, n6 := n2*n, n2*n2, n2*n2*n, n2*n2*n2
	p := &tm{e: math.Sqrt(f * (2 - f))}
	a := el.A / (1 + n) * (1 + n2/4 + n4/64 + n6/256)
	p.k0a = c.Scale * a
	p.alpha = [6]float64{
		n/2 - 2*n2/3 + 5*n3/16 + 41*n4/180 - 127*n5/288 + 7891*n6/37800,
		13*n2/48 - 3*n3/5 + 557*n4/1440 + 281*n5/630 - 1983433*n6/1935360,
		61*n3/240 - 103*n4/140 + 15061*n5/26880 + 167603*n6/181440,
		49561*n4/161280 - 179*n5/168 + 6601661*n6/7257600,
		34729*n5/80640 - 3418889*n6/1995840,
		212378941 * n6 / 319334400,
	}
	p.beta = [6]float64{
		n/2 - 2*n2/3 + 37*n3/96 - n4/360 - 81*n5/512 + 96199*n6/604800,
		n2/48 + n3/15 - 437*n4/1440 + 46*n5/105 - 1118711*n6/3870720,
		17*n3/480 - 37*n4/840 - 209*n5/4480 + 5569*n6/90720,
		4397*n4/161280 - 11*n5/504 - 830251*n6/7257600,
		4583*n5/161280 - 108847*n6/3991680,
		20648693 * n6 / 638668800,
	}
	_, p.northO = p.xy(0, c.LatOrigin*math.Pi/180)
	return p
}

// conformal returns tan χ, the tangent of the conformal latitude, of
// tau = tan φ.
func (p *tm) conformal(tau float64) float64 {
	s := math.Sinh(p.e * math.Atanh(p.e*tau/math.Hypot(1, tau)))
	return float64(tau*math.Hypot(1, s)) - float64(s*math.Hypot(1, tau))
}

// xy maps (λ, φ) in radians, λ from the central meridian, to metres
// from the central meridian and the equator.
func (p *tm) xy(lam, phi float64) (x, y float64) {
	tp := p.conformal(math.Tan(phi))
	cl := math.Cos(lam)
	xi := math.Atan2(tp, cl)
	eta := math.Asinh(math.Sin(lam) / math.Hypot(tp, cl))
	if math.Abs(phi) == math.Pi/2 {
		xi, eta = math.Copysign(math.Pi/2, phi), 0
	}
	x0, y0 := eta, xi
	for j := range p.alpha {
		k := float64(2 * (j + 1))
		y0 += p.alpha[j] * float64(math.Sin(k*xi)*math.Cosh(k*eta))
		x0 += p.alpha[j] * float64(math.Cos(k*xi)*math.Sinh(k*eta))
	}
	return p.k0a * x0, p.k0a * y0
}

func (p *tm) forward(lam, phi float64) (x, y float64) {
	x, y = p.xy(lam, phi)
	return x, y - p.northO
}

func (p *tm) inverse(x, y float64) (lam, phi float64) {
	xi := (y + p.northO) / p.k0a
	eta := x / p.k0a
	xi1, eta1 := xi, eta
	for j := range p.beta {
		k := float64(2 * (j + 1))
		xi1 -= p.beta[j] * float64(math.Sin(k*xi)*math.Cosh(k*eta))
		eta1 -= p.beta[j] * float64(math.Cos(k*xi)*math.Sinh(k*eta))
	}
	sh, c := math.Sinh(eta1), math.Cos(xi1)
	r := math.Hypot(sh, c)
	lam = math.Atan2(sh, c)
	tp := math.Sin(xi1) / r // tan χ
	// Newton's method for tan φ from tan χ (Karney 2011, eqs. 19–21).
	e2 := p.e * p.e
	tau := tp
	for range 5 {
		t1 := p.conformal(tau)
		d := (tp - t1) * (1 + (1-e2)*tau*tau) / ((1 - e2) * math.Hypot(1, tau) * math.Hypot(1, t1))
		tau += d
		if math.Abs(d) <= 1e-15*math.Max(1, math.Abs(tau)) {
			break
		}
	}
	return lam, math.Atan(tau)
}
