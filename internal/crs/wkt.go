package crs

import (
	"fmt"
	"strconv"
	"strings"
)

// node is one WKT 1 element: KEYWORD[value, ...], values being quoted
// strings, numbers or bare words (held in text) or elements.
type node struct {
	key  string
	text []string // every non-element value, in order
	kids []*node
}

func (n *node) kid(key string) *node {
	for _, k := range n.kids {
		if k.key == key {
			return k
		}
	}
	return nil
}

// epsg returns the code of the element's AUTHORITY["EPSG","code"], or 0.
func (n *node) epsg() int {
	a := n.kid("AUTHORITY")
	if a == nil || len(a.text) != 2 || a.text[0] != "EPSG" {
		return 0
	}
	c, _ := strconv.Atoi(a.text[1])
	return c
}

func (n *node) number(i int) (float64, error) {
	if i >= len(n.text) {
		return 0, fmt.Errorf("%w: WKT %s has no value %d", ErrUnsupported, n.key, i+1)
	}
	v, err := strconv.ParseFloat(n.text[i], 64)
	if err != nil {
		return 0, fmt.Errorf("%w: WKT %s value %q is not a number", ErrUnsupported, n.key, n.text[i])
	}
	return v, nil
}

// parseWKT reads a WKT 1 text into its element tree.
func parseWKT(s string) (*node, error) {
	p := 0
	var elem func(depth int) (*node, error)
	skip := func() {
		for p < len(s) && strings.ContainsRune(" \t\r\n", rune(s[p])) {
			p++
		}
	}
	elem = func(depth int) (*node, error) {
		if depth > 16 {
			return nil, fmt.Errorf("%w: WKT nested too deep", ErrUnsupported)
		}
		skip()
		start := p
		for p < len(s) && (s[p] >= 'A' && s[p] <= 'Z' || s[p] >= 'a' && s[p] <= 'z' || s[p] >= '0' && s[p] <= '9' || s[p] == '_') {
			p++
		}
		n := &node{key: strings.ToUpper(s[start:p])}
		skip()
		if n.key == "" || p >= len(s) || (s[p] != '[' && s[p] != '(') {
			return nil, fmt.Errorf("%w: WKT not understood at byte %d", ErrUnsupported, p)
		}
		closer := byte(']')
		if s[p] == '(' {
			closer = ')'
		}
		p++
		for {
			skip()
			switch {
			case p >= len(s):
				return nil, fmt.Errorf("%w: WKT ends inside %s", ErrUnsupported, n.key)
			case s[p] == '"':
				end := strings.IndexByte(s[p+1:], '"')
				if end < 0 {
					return nil, fmt.Errorf("%w: WKT string not closed at byte %d", ErrUnsupported, p)
				}
				n.text = append(n.text, s[p+1:p+1+end])
				p += end + 2
			default:
				start := p
				for p < len(s) && !strings.ContainsRune(",[]() \t\r\n\"", rune(s[p])) {
					p++
				}
				skip()
				if p < len(s) && (s[p] == '[' || s[p] == '(') {
					p = start
					k, err := elem(depth + 1)
					if err != nil {
						return nil, err
					}
					n.kids = append(n.kids, k)
				} else if start == p {
					return nil, fmt.Errorf("%w: WKT not understood at byte %d", ErrUnsupported, p)
				} else {
					n.text = append(n.text, strings.TrimSpace(s[start:p]))
				}
			}
			skip()
			if p < len(s) && s[p] == ',' {
				p++
				continue
			}
			if p < len(s) && s[p] == closer {
				p++
				return n, nil
			}
			return nil, fmt.Errorf("%w: WKT not understood at byte %d", ErrUnsupported, p)
		}
	}
	n, err := elem(0)
	if err != nil {
		return nil, err
	}
	if skip(); p != len(s) {
		return nil, fmt.Errorf("%w: WKT has text after its end, at byte %d", ErrUnsupported, p)
	}
	return n, nil
}

// Parse reads a CRS from WKT 1 as GDAL writes it (GEOGCS or PROJCS).
// Errors wrap ErrUnsupported: WKT 2, a datum that PROJ does not relate to
// WGS 84 by a null transformation, a prime meridian other than
// Greenwich, an angular unit other than the degree, or a projection
// method this package lacks.
func Parse(wkt string) (*CRS, error) {
	root, err := parseWKT(wkt)
	if err != nil {
		return nil, err
	}
	c := &CRS{EPSG: root.epsg()}
	if len(root.text) > 0 {
		c.Name = root.text[0]
	}
	geog := root
	switch root.key {
	case "GEOGCS":
	case "PROJCS":
		if geog = root.kid("GEOGCS"); geog == nil {
			return nil, fmt.Errorf("%w: PROJCS without GEOGCS", ErrUnsupported)
		}
	default:
		return nil, fmt.Errorf("%w: a %s CRS", ErrUnsupported, root.key)
	}
	if len(geog.text) > 0 {
		c.GeogName = geog.text[0]
	}
	c.GeogEPSG = geog.epsg()
	dat, sph := geog.kid("DATUM"), (*node)(nil)
	if dat != nil {
		sph = dat.kid("SPHEROID")
	}
	if dat == nil || sph == nil || len(dat.text) < 1 || len(sph.text) < 1 {
		return nil, fmt.Errorf("%w: a GEOGCS without DATUM and SPHEROID", ErrUnsupported)
	}
	c.Datum = Datum{WKTName: dat.text[0], EPSG: dat.epsg(), Ellipsoid: Ellipsoid{Name: sph.text[0], EPSG: sph.epsg()}}
	if c.Datum.Ellipsoid.A, err = sph.number(1); err != nil {
		return nil, err
	}
	if c.Datum.Ellipsoid.InvF, err = sph.number(2); err != nil {
		return nil, err
	}
	known := false
	for _, g := range geographic {
		if g.datum.EPSG == c.Datum.EPSG && c.Datum.EPSG != 0 || g.datum.WKTName == c.Datum.WKTName {
			known = true
		}
	}
	if !known {
		return nil, fmt.Errorf("%w: datum %s (lon/lat here converts only WGS 84, NAD83, ETRS89, RGF93 and GDA datums)", ErrUnsupported, c.Datum.WKTName)
	}
	if pm := geog.kid("PRIMEM"); pm != nil {
		if v, err := pm.number(1); err != nil || v != 0 {
			return nil, fmt.Errorf("%w: prime meridian %v", ErrUnsupported, pm.text)
		}
		c.PrimeMeridianBare = pm.kid("AUTHORITY") == nil
	}
	if u := geog.kid("UNIT"); u != nil {
		if v, err := u.number(1); err != nil || v != 0.0174532925199433 && v != 0.017453292519943295 {
			return nil, fmt.Errorf("%w: angular unit %v", ErrUnsupported, u.text)
		}
	}
	if root.key == "GEOGCS" {
		return build(c)
	}
	proj := root.kid("PROJECTION")
	if proj == nil || len(proj.text) < 1 {
		return nil, fmt.Errorf("%w: PROJCS without PROJECTION", ErrUnsupported)
	}
	for m, name := range methodWKT {
		if strings.EqualFold(proj.text[0], name) {
			c.Method = m
		}
	}
	if c.Method == None {
		return nil, fmt.Errorf("%w: projection %s", ErrUnsupported, proj.text[0])
	}
	if c.Method == WebMercator && c.EPSG != 3857 {
		return nil, fmt.Errorf("%w: Mercator other than EPSG:3857", ErrUnsupported)
	}
	c.Scale = 1
	for _, k := range root.kids {
		if k.key != "PARAMETER" || len(k.text) < 2 {
			continue
		}
		v, err := k.number(1)
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(k.text[0]) {
		case "latitude_of_origin":
			c.LatOrigin = v
		case "central_meridian":
			c.CentralMeridian = v
		case "scale_factor":
			c.Scale = v
		case "standard_parallel_1":
			c.StdParallel1 = v
		case "standard_parallel_2":
			c.StdParallel2 = v
		case "false_easting":
			c.FalseEasting = v
		case "false_northing":
			c.FalseNorthing = v
		default:
			return nil, fmt.Errorf("%w: projection parameter %s", ErrUnsupported, k.text[0])
		}
	}
	u := root.kid("UNIT")
	if u == nil || len(u.text) < 1 {
		return nil, fmt.Errorf("%w: PROJCS without UNIT", ErrUnsupported)
	}
	c.Unit = Unit{Name: u.text[0], EPSG: u.epsg()}
	if c.Unit.Metres, err = u.number(1); err != nil {
		return nil, err
	}
	return build(c)
}
