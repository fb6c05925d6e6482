package heightmap

import "testing"

// TestGodotFrame: Godot's frame is metres on x and z, image rows along +z,
// and flipped rows run toward the origin, as Unity's.
func TestGodotFrame(t *testing.T) {
	f, err := NewEngineFrame("godot", 2, 3, [2]float64{10, 20}, false, 5)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := f.World(1, 1); a != 12 || b != 23 || f.Axes != [2]string{"x", "z"} || f.Unit != 1 {
		t.Errorf("cell (1,1) at %g,%g on %v (%g m a unit)", a, b, f.Axes, f.Unit)
	}
	if err := f.Check(); err != nil {
		t.Error(err)
	}
	g, err := NewEngineFrame("godot", 2, 3, [2]float64{10, 20}, true, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, b := g.World(0, 0); b != 32 {
		t.Errorf("flipped: the first row at z %g, want 32", b)
	}
	bad := *f
	bad.Unit = 0.01
	if bad.Check() == nil {
		t.Error("a godot frame in centimetres passed Check")
	}
}
