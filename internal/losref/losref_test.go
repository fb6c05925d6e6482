package losref

import "testing"

func TestKnownAnswers(t *testing.T) {
	g := Grid{Width: 20, Height: 3, Elev: make([]float32, 60)}
	for _, v := range Viewshed(g, 0, 1, 1.8, 1.8) {
		if !v {
			t.Fatal("flat ground: a cell is hidden")
		}
	}
	for r := range 3 { // a 5 m wall at column 10
		g.Elev[r*20+10] = 5
	}
	if Visible(g, 0, 1, 15, 1, 1.8, 1.8) || !Visible(g, 0, 1, 9, 1, 1.8, 1.8) || !Visible(g, 0, 1, 15, 1, 1.8, 40) {
		t.Error("wall: wrong answers")
	}
	if Visible(g, 0, 1, 15, 1, 1.8, 1.8) != Visible(g, 15, 1, 0, 1, 1.8, 1.8) {
		t.Error("not symmetric with equal heights")
	}
	var f Fidelity
	f.Add(func(i int) bool { return i%2 == 0 }, []bool{true, true, false, false})
	if f.Misses != 1 || f.Extra != 1 || f.MissRate() != 0.5 || f.ExtraRate() != 0.5 {
		t.Errorf("fidelity %+v", f)
	}
}
