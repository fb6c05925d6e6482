package bots

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ridge is a 30×20 terrain, 2 m cells: flat ground at 0 m split by a wall
// 10 m tall along column 15 with a gap at rows 8–9, and a nodata block.
func ridge() Terrain {
	t := Terrain{Width: 30, Height: 20, Elev: make([]float32, 600), Nodata: make([]bool, 600), Dx: 2, Dy: 2}
	for r := range t.Height {
		if r != 8 && r != 9 {
			t.Elev[r*t.Width+15] = 10
		}
	}
	for r := 2; r < 5; r++ {
		for c := 2; c < 6; c++ {
			t.Nodata[r*t.Width+c] = true
		}
	}
	return t
}

func TestRunStaysOnWalkableSteps(t *testing.T) {
	tr := ridge()
	o := Options{Bots: 6, Ticks: 600, TickSeconds: 0.1, SpeedMS: 3, MaxSlope: 1, RespawnPerMin: 3, Seed: 9}
	p, err := Run(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	// The wall's cells are not standable; everything else is one component
	// through the gap (the nodata block excluded).
	if want := 600 - 12 - 18; p.Standable != want {
		t.Errorf("standable %d, want %d", p.Standable, want)
	}
	w := newWalker(tr, o.MaxSlope)
	crossed, respawns := 0, 0
	for b := range o.Bots {
		for tk := range o.Ticks {
			k := tk*o.Bots + b
			c := p.Cells[k]
			i := int(c[1])*tr.Width + int(c[0])
			if tr.Nodata[i] || tr.Elev[i] != 0 {
				t.Fatalf("bot %d tick %d on cell %v (nodata %v, %g m)", b, tk, c, tr.Nodata[i], tr.Elev[i])
			}
			if tk == 0 {
				continue
			}
			if p.Respawned[k] {
				respawns++
				continue
			}
			prev := p.Pos[k-o.Bots]
			d := math.Hypot(float64(p.Pos[k][0]-prev[0])*tr.Dx, float64(p.Pos[k][1]-prev[1])*tr.Dy)
			if d > o.SpeedMS*o.TickSeconds+1e-4 {
				t.Fatalf("bot %d tick %d moved %g m, more than %g", b, tk, d, o.SpeedMS*o.TickSeconds)
			}
			if v := p.Vel[k]; math.Abs(float64(v[0]-(p.Pos[k][0]-prev[0]))) > 1e-5 || math.Abs(float64(v[1]-(p.Pos[k][1]-prev[1]))) > 1e-5 {
				t.Fatalf("bot %d tick %d velocity %v", b, tk, v)
			}
			pc := p.Cells[k-o.Bots]
			if pc != c {
				dc, dr := int(c[0]-pc[0]), int(c[1]-pc[1])
				if _, _, ok := w.step(int(pc[1])*tr.Width+int(pc[0]), [2]int{dc, dr}); !ok {
					t.Fatalf("bot %d tick %d stepped %v→%v, not a walkable step", b, tk, pc, c)
				}
				if (pc[0] < 15) != (c[0] < 15) {
					crossed++
				}
			}
		}
	}
	if crossed == 0 || respawns == 0 {
		t.Errorf("%d wall crossings through the gap, %d respawns: want some of each", crossed, respawns)
	}
	// Deterministic, and a bot's path does not depend on the others.
	q, _ := Run(tr, o)
	if !slices.Equal(p.Cells, q.Cells) {
		t.Error("same seed, different paths")
	}
	o.Bots = 3
	few, _ := Run(tr, o)
	for tk := range o.Ticks {
		for b := range 3 {
			if few.Cells[tk*3+b] != p.Cells[tk*6+b] {
				t.Fatalf("bot %d's path changes with the number of bots", b)
			}
		}
	}
}

func TestRouteIsShortest(t *testing.T) {
	tr := ridge()
	w := newWalker(tr, 1)
	w.largest()
	// From (10,1) to (20,1): through the gap at rows 8–9.
	src, dst := int32(1*30+10), int32(1*30+20)
	route := w.route(nil, src, dst)
	length, at := 0.0, src
	for k := len(route) - 1; k >= 0; k-- {
		n := route[k]
		length += math.Hypot(float64(int(n)%30-int(at)%30)*2, float64(int(n)/30-int(at)/30)*2)
		at = n
	}
	// 5 columns to the gap diagonally down 7 rows… the exact optimum: from
	// column 10 to 20 via rows 8–9 needs 7 rows down and 7 up (14 diagonal
	// or vertical steps) covering 10 columns: 10 diagonals and 4 verticals.
	want := 10*math.Hypot(2, 2) + 4*2
	if at != dst || math.Abs(length-want) > 1e-9 {
		t.Errorf("route ends at %d, %.3f m long, want %d and %.3f m", at, length, dst, want)
	}
	if r := w.route(nil, src, src); len(r) != 0 {
		t.Error("route to itself")
	}
}

func TestRunErrors(t *testing.T) {
	tr := ridge()
	good := Options{Bots: 2, Ticks: 10, TickSeconds: 0.1, SpeedMS: 1, MaxSlope: 1}
	for name, mut := range map[string]func(*Options, *Terrain){
		"no bots":       func(o *Options, _ *Terrain) { o.Bots = 0 },
		"no speed":      func(o *Options, _ *Terrain) { o.SpeedMS = 0 },
		"NaN slope":     func(o *Options, _ *Terrain) { o.MaxSlope = math.NaN() },
		"bad spacing":   func(_ *Options, t *Terrain) { t.Dx = 0 },
		"short elev":    func(_ *Options, t *Terrain) { t.Elev = t.Elev[:10] },
		"hot share":     func(o *Options, _ *Terrain) { o.HotSpot = HotSpot{Col: 20, Row: 10, RadiusM: 5, Share: 1.5} },
		"hot outside":   func(o *Options, _ *Terrain) { o.HotSpot = HotSpot{Col: 30, Row: 10, RadiusM: 5, Share: 1} },
		"hot radius":    func(o *Options, _ *Terrain) { o.HotSpot = HotSpot{Col: 20, Row: 10, Share: 1} },
		"hot on nodata": func(o *Options, _ *Terrain) { o.HotSpot = HotSpot{Col: 3, Row: 3, RadiusM: 1, Share: 1} },
		"all nodata": func(_ *Options, t *Terrain) {
			for i := range t.Nodata {
				t.Nodata[i] = true
			}
		},
	} {
		o, tt := good, ridge()
		mut(&o, &tt)
		if _, err := Run(tt, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Run(tr, good); err != nil {
		t.Error(err)
	}
}

// TestHotSpot: with every waypoint at a hot spot the bots gather there —
// most within its radius after a minute, against a few without it — and a
// hot spot with share 0 changes no path.
func TestHotSpot(t *testing.T) {
	tr := ridge()
	o := Options{Bots: 40, Ticks: 600, TickSeconds: 0.1, SpeedMS: 3, MaxSlope: 1, Seed: 4}
	near := func(p *Paths, tk int) int {
		n := 0
		for b := range p.Bots {
			c := p.Cells[tk*p.Bots+b]
			if math.Hypot(float64(c[0]-22)*tr.Dx, float64(c[1]-12)*tr.Dy) <= 6 {
				n++
			}
		}
		return n
	}
	free, err := Run(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	o.HotSpot = HotSpot{Col: 22, Row: 12, RadiusM: 6, Share: 0}
	same, err := Run(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(free.Cells, same.Cells) {
		t.Error("a hot spot with share 0 changed the paths")
	}
	o.HotSpot.Share = 1
	hot, err := Run(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	last := o.Ticks - 1
	h, f := near(hot, last), near(free, last)
	t.Logf("bots within 6 m of the hot spot after a minute: %d of 40 with it, %d without", h, f)
	if h < 30 || f > 15 {
		t.Errorf("bots within 6 m of the hot spot after a minute: %d of 40 with it, %d without", h, f)
	}
	if h := near(hot, 0); h > 15 {
		t.Errorf("%d of 40 bots start at the hot spot", h)
	}
}

// TestOutOfStep: bots start at random points of their first route, so their
// cell changes spread over the ticks instead of coming in waves (bots all
// leaving cell centres at one speed at tick 0 used to change cell in the
// same ticks: more than half of them at once).
func TestOutOfStep(t *testing.T) {
	tr := Terrain{Width: 64, Height: 64, Elev: make([]float32, 64*64), Dx: 1, Dy: 1}
	o := Options{Bots: 400, Ticks: 60, TickSeconds: 0.1, SpeedMS: 1.4, MaxSlope: 1, Seed: 3}
	p, err := Run(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	total, most := 0, 0
	for tk := 1; tk < o.Ticks; tk++ {
		changes := 0
		for b := range o.Bots {
			if p.Cells[tk*o.Bots+b] != p.Cells[(tk-1)*o.Bots+b] {
				changes++
			}
		}
		total += changes
		most = max(most, changes)
	}
	mean := float64(total) / float64(o.Ticks-1)
	if float64(most) > 2*mean {
		t.Errorf("at most %d of %d bots change cell in a tick, %.1f on average: waves", most, o.Bots, mean)
	}
	t.Logf("at most %d of %d bots change cell in a tick, %.1f on average", most, o.Bots, mean)
}

// refQueue is container/heap's view of a queue: the reference the typed
// heap must follow pop for pop, ties included (routes depend on them).
type refQueue []item

func (q refQueue) Len() int           { return len(q) }
func (q refQueue) Less(i, j int) bool { return q[i].f < q[j].f }
func (q refQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *refQueue) Push(x any)        { *q = append(*q, x.(item)) }
func (q *refQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// TestQueueFollowsContainerHeap: random pushes and pops, with many equal
// keys, pop the same items in the same order as container/heap.
func TestQueueFollowsContainerHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for round := range 50 {
		var q queue
		var ref refQueue
		for op := range 2000 {
			if rng.IntN(3) > 0 || len(q) == 0 {
				it := item{int32(op), float64(rng.IntN(1 + round))}
				q.push(it)
				heap.Push(&ref, it)
				continue
			}
			got, want := q.pop(), heap.Pop(&ref).(item)
			if got != want {
				t.Fatalf("round %d, op %d: popped %+v, container/heap %+v", round, op, got, want)
			}
		}
		for len(q) > 0 {
			if got, want := q.pop(), heap.Pop(&ref).(item); got != want {
				t.Fatalf("round %d, draining: popped %+v, container/heap %+v", round, got, want)
			}
		}
	}
}
