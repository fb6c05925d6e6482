package quadtree

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
)

// TestCap checks the §3.4 compression on random and real PVSs: the cap is
// honoured, the result is conservative and canonical-shaped (it decodes),
// a tree within the cap is unchanged, and a smaller cap never shows fewer
// cells than a larger one.
func TestCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	type tc struct {
		g  Geometry
		bm horizon.Bitmap
	}
	var cases []tc
	for _, wh := range geometries {
		g, _ := NewGeometry(wh[0], wh[1])
		for range 6 {
			cases = append(cases, tc{g, blobs(rng, wh[0], wh[1])}, tc{g, noise(rng, wh[0], wh[1], 0.3)})
		}
	}
	g, real := realPVSs(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 200, Row: 200, Width: 90, Height: 70}, 6)
	for _, b := range real {
		cases = append(cases, tc{g, b})
	}
	for _, minLoss := range []bool{false, true} {
		for _, x := range cases {
			checkCaps(t, minLoss, x.g, x.bm)
		}
	}
	var c Capper
	if err := c.Cap(&Tree{}, encode(t, g, real[0]), 0); err == nil {
		t.Error("cap of 0 nodes accepted")
	}
}

// checkCaps caps bm's tree (on g) at a range of node caps, largest first,
// with one Capper (deepest-first, or min-loss), and checks TestCap's
// properties for each.
func checkCaps(t *testing.T, minLoss bool, g Geometry, bm horizon.Bitmap) {
	t.Helper()
	var w Walker
	c := Capper{MinLoss: minLoss, G: g}
	src := encode(t, g, bm)
	var prev horizon.Bitmap
	caps := []int{src.Nodes() + 5, src.Nodes(), src.Nodes() * 3 / 4, src.Nodes() / 2, 40, 13, 5, 1}
	slices.Sort(caps)
	slices.Reverse(caps) // largest first: each cap continues the previous one's collapses
	for _, n := range caps {
		if n < 1 {
			continue
		}
		var dst Tree
		if err := c.Cap(&dst, src, n); err != nil {
			t.Fatal(err)
		}
		if dst.Nodes() > n {
			t.Fatalf("cap %d left %d nodes", n, dst.Nodes())
		}
		got := w.Bitmap(g, &dst, horizon.Bitmap{})
		for i := range got.Words {
			if bm.Words[i]&^got.Words[i] != 0 {
				t.Fatalf("cap %d hides a visible cell", n)
			}
			if prev.Words != nil && prev.Words[i]&^got.Words[i] != 0 {
				t.Fatalf("cap %d hides a cell a larger cap shows", n)
			}
		}
		if n >= src.Nodes() && !equalBitmaps(got, bm) {
			t.Fatalf("cap %d ≥ %d nodes changed the tree", n, src.Nodes())
		}
		var d Tree
		if err := FromCodes(g, dst.Codes(), dst.Len(), &d); err != nil {
			t.Fatalf("capped tree does not decode: %v", err)
		}
		prev = got
		if n >= 5 {
			var dc Tree
			c.CapCodes(&dc, src, n)
			if dc.Len() > n {
				t.Fatalf("code cap %d left %d codes", n, dc.Len())
			}
			cb := w.Bitmap(g, &dc, horizon.Bitmap{})
			for i := range cb.Words {
				if bm.Words[i]&^cb.Words[i] != 0 {
					t.Fatalf("code cap %d hides a visible cell", n)
				}
			}
		}
	}
}

// BenchmarkCap caps real 316² PVSs (~2,800 nodes) at the thesis's 0.1 GB
// cap for its 100,000-point terrain, 267 nodes.
func BenchmarkCap(b *testing.B) {
	g, bms := realPVSs(b, "N44W072.hgt", benchWin, 16)
	enc := NewEncoder(g)
	trees := make([]Tree, len(bms))
	for i := range bms {
		enc.Encode(bms[i], &trees[i])
	}
	var c Capper
	var dst Tree
	var w Walker
	kept, all := 0, 0
	for i := range trees {
		c.Cap(&dst, &trees[i], 267)
		kept += w.HiddenCells(g, &dst)
		all += w.HiddenCells(g, &trees[i])
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Cap(&dst, &trees[i%len(trees)], 267)
	}
	b.ReportMetric(float64(kept)/float64(all), "hidden-kept")
}

// TestCapEach: capping at several limits in one pass gives the trees of one
// Cap (or CapCodes) call per limit, on real PVSs and on their unions.
func TestCapEach(t *testing.T) {
	g, real := realPVSs(t, "N44W072.hgt", heightmap.Window{Col: 500, Row: 500, Width: 100, Height: 90}, 8)
	for _, mode := range []bool{false, true} {
		c, c1 := Capper{MinLoss: mode, G: g}, Capper{MinLoss: mode, G: g}
		var m Merger
		var u Tree
		for i, b := range real {
			src := encode(t, g, b)
			if i > 0 {
				m.Merge(&u, encode(t, g, real[i-1]), src, Lossless)
				src = &u
			}
			for _, codes := range []bool{false, true} {
				size := src.Nodes()
				if codes {
					size = src.Len()
				}
				limits := []int{size, size * 2 / 3, size / 3, size / 3, 17, 1}
				dsts := make([]*Tree, len(limits))
				for j := range dsts {
					dsts[j] = new(Tree)
				}
				if err := c.CapEach(dsts, src, limits, codes); err != nil {
					t.Fatal(err)
				}
				for j, l := range limits {
					var want Tree
					if codes {
						c1.CapCodes(&want, src, l)
					} else {
						c1.Cap(&want, src, l)
					}
					if !equalTrees(dsts[j], &want) {
						t.Fatalf("min-loss %v, tree %d, codes %v, limit %d: CapEach gives %d codes, Cap %d", mode, i, codes, l, dsts[j].Len(), want.Len())
					}
				}
			}
		}
	}
	var c Capper
	u := *encode(t, g, real[0])
	if err := c.CapEach([]*Tree{new(Tree), new(Tree)}, &u, []int{5, 9}, false); err == nil {
		t.Error("caps in increasing order are accepted")
	}
}

// TestMinLossKeepsMore: on real PVSs capped at the same node or code
// counts, min-loss capping keeps at least as many hidden cells in all as
// §3.4's deepest-first capping (it is greedy, so not tree by tree in
// general), and keeps them where deepest-first keeps none.
func TestMinLossKeepsMore(t *testing.T) {
	var w Walker
	for _, tr := range []struct {
		name string
		win  heightmap.Window
	}{
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 200, Row: 200, Width: 90, Height: 70}},
		{"N44W072.hgt", heightmap.Window{Col: 500, Row: 500, Width: 100, Height: 90}},
	} {
		g, real := realPVSs(t, tr.name, tr.win, 10)
		deep, ml := Capper{}, Capper{MinLoss: true, G: g}
		var keptDeep, keptML, all int
		for _, b := range real {
			src := encode(t, g, b)
			all += w.HiddenCells(g, src)
			for _, f := range []int{2, 4, 8} {
				var d1, d2 Tree
				deep.Cap(&d1, src, src.Nodes()/f)
				ml.Cap(&d2, src, src.Nodes()/f)
				if d2.Nodes() > src.Nodes()/f {
					t.Fatalf("min-loss left %d nodes, cap %d", d2.Nodes(), src.Nodes()/f)
				}
				keptDeep += w.HiddenCells(g, &d1)
				keptML += w.HiddenCells(g, &d2)
			}
		}
		t.Logf("%s: hidden cells kept at ½, ¼, ⅛ of the nodes: deepest-first %d, min-loss %d (of 3 × %d)", tr.name, keptDeep, keptML, all)
		if keptML < keptDeep {
			t.Errorf("%s: min-loss kept %d hidden cells, deepest-first %d", tr.name, keptML, keptDeep)
		}
	}
}

// TestLossSizes against a slow reference: min-loss caps 4 codes smaller
// each time, the hidden cells each one loses being the collapse's loss;
// the size at price λ (per byte) is the one after the longest prefix of
// collapses maximising λ·(bytes saved) − their loss (times the weight),
// found by trying every prefix. Real and random PVSs, with and without a ceiling.
func TestLossSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	g, real := realPVSs(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 200, Row: 200, Width: 90, Height: 70}, 4)
	type tc struct {
		g  Geometry
		bm horizon.Bitmap
	}
	var cases []tc
	for _, b := range real {
		cases = append(cases, tc{g, b})
	}
	gs, _ := NewGeometry(37, 23)
	for range 4 {
		cases = append(cases, tc{gs, blobs(rng, 37, 23)}, tc{gs, noise(rng, 37, 23, 0.3)})
	}
	var w Walker
	th := []float64{0, 1, 2, 3, 5, 8, 13, 40, 200, 1e9}
	for i, x := range cases {
		src := encode(t, x.g, x.bm)
		for _, byNodes := range []bool{false, true} {
			size := src.Len()
			if byNodes {
				size = src.Nodes()
			}
			for _, ceiling := range []int{size, max(size/3, 1)} {
				for _, weight := range []float64{1, 2.5} {
					c := Capper{G: x.g}
					got, gotNodes := make([]int32, len(th)), make([]int32, len(th))
					if err := c.LossSizes(got, gotNodes, src, ceiling, byNodes, weight, th); err != nil {
						t.Fatal(err)
					}
					// The reference walks the same collapses one cap at a time.
					ref := Capper{MinLoss: true, G: x.g}
					var cur, next Tree
					src.CopyTo(&cur)
					if byNodes && cur.Nodes() > ceiling {
						ref.Cap(&cur, src, ceiling)
					} else if !byNodes && cur.Len() > ceiling {
						ref.CapCodes(&cur, src, ceiling)
					}
					sizes, nodes, losses := []int{cur.Len()}, []int{cur.Nodes()}, []float64{}
					for cur.Len() > 1 {
						ref.CapCodes(&next, &cur, cur.Len()-1)
						losses = append(losses, float64(w.HiddenCells(x.g, &cur)-w.HiddenCells(x.g, &next))*weight)
						sizes, nodes = append(sizes, next.Len()), append(nodes, next.Nodes())
						cur, next = next, cur
					}
					cost := func(k int) float64 {
						if byNodes {
							return float64(nodes[k])
						}
						return float64(BytesFor(sizes[k]))
					}
					// At price λ, the longest prefix maximising λ·(cost saved) − loss.
					for j, lambda := range th {
						best, bestK, lost := 0.0, 0, 0.0
						for k, l := range losses {
							lost += l
							if v := lambda*(cost(0)-cost(k+1)) - lost; v >= best {
								best, bestK = v, k+1
							}
						}
						if got[j] != int32(sizes[bestK]) || gotNodes[j] != int32(nodes[bestK]) {
							t.Fatalf("case %d, by nodes %v, ceiling %d, weight %g: at λ %g %d codes and %d nodes, the reference %d and %d",
								i, byNodes, ceiling, weight, lambda, got[j], gotNodes[j], sizes[bestK], nodes[bestK])
						}
					}
				}
			}
		}
	}
	var c Capper
	if err := c.LossSizes(make([]int32, 2), nil, encode(t, g, real[0]), 10, false, 1, []float64{2, 1}); err == nil {
		t.Error("decreasing thresholds accepted")
	}
	if err := c.LossSizes(make([]int32, 1), nil, encode(t, g, real[0]), 0, false, 1, []float64{1}); err == nil {
		t.Error("ceiling 0 accepted")
	}
}

// TestCapAtPrices: capping at prices writes, for every price, the tree
// LossSizes's size and CapCodes give, on real trees, from a ceiling.
func TestCapAtPrices(t *testing.T) {
	h := realHierarchy(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 37, Height: 29}, 0)
	prices := []float64{0, 0.01, 0.1, 0.5, 2, 40}
	c := Capper{MinLoss: true, G: h.G, CostCodes: true}
	ref := Capper{MinLoss: true, G: h.G, CostCodes: true}
	sizes, want := make([]int32, len(prices)), make([]int32, len(prices))
	dsts := make([]*Tree, len(prices))
	for j := range dsts {
		dsts[j] = new(Tree)
	}
	var exp Tree
	for q := 0; q < h.Quads(); q += 7 {
		src := h.PVS(q)
		ceiling := max(1, src.Len()*3/4)
		if err := c.CapAtPrices(dsts, sizes, &src, ceiling, 1, prices); err != nil {
			t.Fatal(err)
		}
		if err := ref.LossSizes(want, nil, &src, ceiling, false, 1, prices); err != nil {
			t.Fatal(err)
		}
		for j := range prices {
			if sizes[j] != want[j] {
				t.Fatalf("quad %d price %g: size %d, LossSizes says %d", q, prices[j], sizes[j], want[j])
			}
			if err := ref.CapCodes(&exp, &src, int(want[j])); err != nil {
				t.Fatal(err)
			}
			if !equalTrees(dsts[j], &exp) || dsts[j].Nodes() != exp.Nodes() {
				t.Fatalf("quad %d price %g: %d codes, CapCodes gives %d", q, prices[j], dsts[j].Len(), exp.Len())
			}
		}
	}
}

// BenchmarkCapAtPrice caps real 316² PVSs (~2,800 nodes) min-loss at one
// price, as a coded bake does for every quad (CapAtPrices: the collapses
// to the root, then the prefix replayed).
func BenchmarkCapAtPrice(b *testing.B) {
	g, bms := realPVSs(b, "N44W072.hgt", benchWin, 16)
	enc := NewEncoder(g)
	trees := make([]Tree, len(bms))
	for i := range bms {
		enc.Encode(bms[i], &trees[i])
	}
	c := Capper{MinLoss: true, G: g, CostCodes: true}
	dst := []*Tree{new(Tree)}
	sizes := make([]int32, 1)
	prices := []float64{0.5}
	codes := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t := &trees[i%len(trees)]
		if err := c.CapAtPrices(dst, sizes, t, t.Len(), 1, prices); err != nil {
			b.Fatal(err)
		}
		codes += t.Len()
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(codes), "ns/code")
}

// TestMinLossOrder: the min-loss collapses come in the order of a slow
// reference that, at every step, scans all groups for the least key (hidden
// cells lost, then deeper, then later), each node's cells counted from its
// quad clipped to the grid — on real PVSs and on grids whose sides are not
// powers of two, so that quads straddle the edge.
func TestMinLossOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	g, real := realPVSs(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 200, Row: 200, Width: 90, Height: 70}, 3)
	type tc struct {
		g  Geometry
		bm horizon.Bitmap
	}
	var cases []tc
	for _, b := range real {
		cases = append(cases, tc{g, b})
	}
	for _, wh := range [][2]int{{37, 23}, {5, 61}, {64, 64}} {
		gs, err := NewGeometry(wh[0], wh[1])
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{gs, blobs(rng, wh[0], wh[1])}, tc{gs, noise(rng, wh[0], wh[1], 0.3)})
	}
	// Tiles of 16×16 cells, each hidden or visible, on a grid whose sides
	// cut tiles: groups losing hundreds of cells (above smallLoss), of
	// several sizes.
	gt, err := NewGeometry(300, 220)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b := horizon.NewBitmap(300, 220)
		vis := make([]bool, 19*14)
		for i := range vis {
			vis[i] = rng.IntN(3) == 0
		}
		for r := range 220 {
			for c := range 300 {
				b.Set(c, r, vis[r/16*19+c/16])
			}
		}
		cases = append(cases, tc{gt, b})
	}
	for i, x := range cases {
		src := encode(t, x.g, x.bm)
		want := minLossOrderRef(x.g, src)
		c := Capper{G: x.g}
		c.record = true
		// By nodes there is no early stop: the collapses go to the root.
		if err := c.LossSizes(make([]int32, 1), nil, src, src.Nodes(), true, 1, []float64{0}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.order, want) {
			k := 0
			for k < min(len(c.order), len(want)) && c.order[k] == want[k] {
				k++
			}
			t.Fatalf("case %d (%d×%d): %d collapses, the reference %d; first difference at collapse %d",
				i, x.g.Width, x.g.Height, len(c.order), len(want), k)
		}
	}
}

// minLossOrderRef returns the nodes min-loss capping collapses, in order,
// down to the root, found by brute force.
func minLossOrderRef(g Geometry, src *Tree) []int32 {
	n := src.Len()
	st := make([]Status, n)
	child := make([]int, n)
	parent := make([]int, n)
	pos := make([]quadPos, n)
	next := 1
	for i := range n {
		st[i] = src.code(i)
		if st[i] == Unknown {
			child[i] = next
			for k := range 4 {
				parent[next+k] = i
				pos[next+k] = quadPos{pos[i].depth + 1, 2*pos[i].x + k&1, 2*pos[i].y + k>>1}
			}
			next += 4
		}
	}
	var order []int32
	for {
		best, bestKey := -1, group(0)
		for i := range n {
			if st[i] != Unknown {
				continue
			}
			var loss int64
			leaves := true
			for k := range 4 {
				switch st[child[i]+k] {
				case Unknown:
					leaves = false
				case Hidden:
					loss += int64(g.cellsIn(pos[child[i]+k]))
				}
			}
			if key := newGroup(loss, pos[i].depth, i); leaves && (best < 0 || key < bestKey) {
				best, bestKey = i, key
			}
		}
		if best < 0 {
			return order
		}
		order = append(order, int32(best))
		for k := range 4 {
			st[child[best]+k] = dropped
		}
		st[best] = Visible
		if best == 0 {
			return order
		}
	}
}
