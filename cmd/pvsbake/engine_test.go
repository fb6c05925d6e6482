package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/grow"
)

// TestEngineFrames bakes a deliberately asymmetric RAW heightmap — 64×40
// samples 2 m apart, flat, with a 50 m wall at column 20 across the
// file's first 20 rows only — in Unity's and Unreal's conventions and
// asks, in engine coordinates, whether two players on either side of the
// wall see each other: hidden where the wall stands between them, seen
// where it does not. Every single wrong convention — the axes swapped,
// the rows flipped, centimetres read as metres — moves the players off the
// wall or off the terrain, and the test runs each to show that it fails.
func TestEngineFrames(t *testing.T) {
	dir := t.TempDir()
	const w, h, wallCol = 64, 40, 20
	b := make([]byte, 2*w*h)
	for r := range 20 {
		binary.LittleEndian.PutUint16(b[2*(r*w+wallCol):], 5000) // 50 m at 1 cm a unit
	}
	raw := filepath.Join(dir, "wall.raw")
	if err := os.WriteFile(raw, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Players at file cells (10,5)–(30,5), the wall between, and
	// (10,34)–(30,34), open ground; positions a little off the samples.
	cells := [][2][2]float64{{{10.2, 5.3}, {30.1, 4.8}}, {{10.2, 34.3}, {30.1, 34.8}}}
	type convention struct {
		name, engine, origin string
		flip                 bool
		world                func(c [2]float64) [2]float64 // the engine's position of a file cell
	}
	unity := func(c [2]float64) [2]float64 { return [2]float64{100 + 2*c[0], 200 + 2*c[1]} }
	unityFlipped := func(c [2]float64) [2]float64 { return [2]float64{100 + 2*c[0], 200 + 2*(h-1-c[1])} }
	unreal := func(c [2]float64) [2]float64 { return [2]float64{-5000 + 200*c[0], 7000 + 200*c[1]} }
	good := []convention{
		{"unity", "unity", "100,200", false, unity},
		{"unity flipped", "unity", "100,200", true, unityFlipped},
		{"unreal", "unreal", "-5000,7000", false, unreal},
	}
	// The same bakes asked with one convention wrong.
	wrong := []convention{
		{"unity, x and z swapped", "unity", "100,200", false, func(c [2]float64) [2]float64 { p := unity(c); return [2]float64{p[1], p[0]} }},
		{"unity, rows flipped", "unity", "100,200", false, unityFlipped},
		{"unity flipped, rows not", "unity", "100,200", true, unity},
		{"unreal, centimetres as metres", "unreal", "-5000,7000", false, func(c [2]float64) [2]float64 { p := unreal(c); return [2]float64{p[0] / 100, p[1] / 100} }},
	}
	check := func(cv convention) error {
		store := filepath.Join(dir, strings.ReplaceAll(cv.name, " ", "-")+".pvs")
		args := []string{"bake", raw, "-o", store, "--raw-size", "64x40", "--cell-size", "2", "--z-scale", "0.01", "--sectors", "128", "--budget", "100MB", "-q",
			"--los", "region", "--engine", cv.engine, "--engine-origin", cv.origin}
		if cv.flip {
			args = append(args, "--engine-flip")
		}
		if _, errOut, code := runCmd(args...); code != 0 {
			t.Fatalf("%s: %s", cv.name, errOut)
		}
		s, err := frontiersets.Open(store)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i, pair := range cells {
			res, err := s.FrontierAtWorld(cv.world(pair[0]), cv.world(pair[1]), grow.Options{})
			if err != nil {
				return err
			}
			if wantHidden := i == 0; res.MutuallyVisible == wantHidden {
				return fmt.Errorf("players at file cells %v and %v: mutually visible %v", pair[0], pair[1], res.MutuallyVisible)
			}
		}
		return nil
	}
	for _, cv := range good {
		if err := check(cv); err != nil {
			t.Errorf("%s: %v", cv.name, err)
		}
	}
	for _, cv := range wrong {
		if err := check(cv); err == nil {
			t.Errorf("%s: the test passes with this mistake", cv.name)
		} else {
			t.Logf("%s fails it: %v", cv.name, err)
		}
	}
	// Off the terrain: one line with the world bounds (the samples' hull,
	// x 100 to 226: 64 samples 2 m apart); a store without a frame refuses
	// world positions.
	s, err := frontiersets.Open(filepath.Join(dir, "unity.pvs"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.WorldToPosition(98.9, 200); !errors.Is(err, frontiersets.ErrOutside) || !strings.Contains(err.Error(), "x 100 to 226, z 200 to 278") {
		t.Errorf("a position west of the terrain: %v", err)
	}
	if a, bb, err := s.CellToWorld(63, 39); err != nil || a != 226 || bb != 278 {
		t.Errorf("the far corner cell is at %g, %g (%v), want 226, 278", a, bb, err)
	}
	plain := filepath.Join(dir, "plain.pvs")
	if _, errOut, code := runCmd("bake", raw, "-o", plain, "--raw-size", "64x40", "--cell-size", "2", "--z-scale", "0.01", "--sectors", "64", "--budget", "100MB", "-q"); code != 0 {
		t.Fatal(errOut)
	}
	p, err := frontiersets.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, _, err := p.WorldToPosition(1, 1); !errors.Is(err, frontiersets.ErrNoEngine) {
		t.Errorf("world positions on a store without a frame: %v", err)
	}
	if _, errOut, code := runCmd("bake", raw, "-o", plain, "--raw-size", "64x40", "--cell-size", "2", "--z-scale", "0.01", "--budget", "1MB", "--engine", "cryengine"); code != 2 || !strings.Contains(errOut, "want unity, unreal or godot") {
		t.Errorf("--engine cryengine: exit %d, %s", code, errOut)
	}
}
