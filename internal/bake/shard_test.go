package bake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestPlanShards checks the split: the shards' quad and cell ranges tile
// the level in order, the level is the highest with 16 quads per shard,
// points with data are balanced to within one quad's, and nodata cells do
// not count.
func TestPlanShards(t *testing.T) {
	g, _ := quadpvs.NewGeometry(300, 200)
	nodata := make([]bool, 300*200)
	for i := range nodata {
		nodata[i] = i%300 < 150 // the west half has no data
	}
	for _, tc := range []struct {
		n      int
		nodata []bool
		level  int
	}{{1, nil, 6}, {3, nil, 5}, {8, nil, 4}, {64, nil, 2}, {5000, nil, 0}, {8, nodata, 4}, {60000, nil, 0}} {
		t.Run(fmt.Sprintf("%d/%v", tc.n, tc.nodata != nil), func(t *testing.T) {
			p, err := PlanShards(g, tc.nodata, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if p.Level != tc.level {
				t.Errorf("level %d, want %d", p.Level, tc.level)
			}
			c, r := g.QuadsAcross(p.Level)
			if p.First[0] != 0 || p.First[tc.n] != c*r || p.Cells[0] != 0 || p.Cells[tc.n] != 300*200 {
				t.Fatalf("ranges %v… %v", p.First[:2], p.First[tc.n])
			}
			total, most := 0, 0
			for i := range tc.n {
				if p.First[i] > p.First[i+1] || p.Cells[i] > p.Cells[i+1] {
					t.Fatalf("shard %d: quads %d–%d, cells %d–%d", i, p.First[i], p.First[i+1], p.Cells[i], p.Cells[i+1])
				}
				total += p.Points[i]
				most = max(most, p.Points[i])
			}
			want := 300 * 200
			if tc.nodata != nil {
				want /= 2
			}
			quad := 1 << (2 * p.Level)
			if total != want || most > (want+tc.n-1)/tc.n+quad {
				t.Errorf("points %d (want %d), largest shard %d, want ≤ %d", total, want, most, want/tc.n+quad)
			}
			if tc.nodata != nil && p.Cells[1] <= 300*200/tc.n {
				t.Errorf("first shard has %d cells: nodata counted as work", p.Cells[1])
			}
		})
	}
	for _, n := range []int{0, -1, 300*200 + 1, MaxShards + 1} {
		if _, err := PlanShards(g, nil, n); err == nil {
			t.Errorf("%d shards accepted", n)
		}
	}
}

// shardOutputs are the outputs of the sharded bake tests: two budgets (the
// larger binding only at the top levels) and a thesis node cap.
func shardOutputs(dir, prefix string) []Output {
	return []Output{
		{Path: filepath.Join(dir, prefix+"-big.pvs"), Label: "big", Budget: 1 << 20, Cap: compress.Cap{Codes: 400}},
		{Path: filepath.Join(dir, prefix+"-small.pvs"), Label: "small", Budget: 1 << 16, Cap: compress.Cap{Codes: 40}},
		{Path: filepath.Join(dir, prefix+"-n9.pvs"), Label: "n9", Cap: compress.Cap{Nodes: 9}},
		{Path: filepath.Join(dir, prefix+"-small-minloss.pvs"), Label: "small-minloss", Budget: 1 << 16, Cap: compress.Cap{Codes: 40, MinLoss: true}},
		{Path: filepath.Join(dir, prefix+"-n9-minloss.pvs"), Label: "n9-minloss", Cap: compress.Cap{Nodes: 9, MinLoss: true}},
	}
}

// bakeShards bakes dem in n shards into dir and returns the partials' paths.
func bakeShards(t *testing.T, dem *heightmap.Grid, p horizon.Params, dir string, n int) []string {
	t.Helper()
	var paths []string
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("part-%d-of-%d", i, n))
		_, err := Run(context.Background(), Config{DEM: dem, Params: p, Workers: 2, HiddenSample: 3,
			Outputs: shardOutputs(dir, "unused"), Shard: Shard{Index: i, Count: n, Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

func openPartials(t *testing.T, paths []string) []*Partial {
	t.Helper()
	var parts []*Partial
	for _, path := range paths {
		p, err := OpenPartial(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		parts = append(parts, p)
	}
	return parts
}

// TestShardJoinIdentical bakes real windows (hilly HGT; the urban DSM with
// a block of cells marked nodata) once whole and once in 1, 3, 7 and 200 shards, joins
// the shards' partials given in reverse order, and checks that every joined
// store is byte for byte the whole bake's, statistics included; re-running
// a shard gives the same bytes.
func TestShardJoinIdentical(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    heightmap.Window
	}{
		{"N44W072.hgt", heightmap.Window{Col: 830, Row: 860, Width: 37, Height: 29}},
		{"annarbor-dsm-2ft.tif", heightmap.Window{Col: 160, Row: 160, Width: 31, Height: 34}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dem := loadWindow(t, tc.name, tc.w)
			if tc.name != "N44W072.hgt" {
				dem.Nodata = make([]bool, dem.Width*dem.Height)
				for i := range dem.Nodata {
					dem.Nodata[i] = i%dem.Width < 12 && i/dem.Width < 20
				}
			}
			p := horizon.ThesisParams()
			p.Sectors = 128
			dir := t.TempDir()
			whole := shardOutputs(dir, "whole")
			want, err := Run(context.Background(), Config{DEM: dem, Params: p, Workers: 2, HiddenSample: 3, Outputs: whole})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 3, 7, 200} {
				sub := filepath.Join(dir, fmt.Sprint(n))
				os.Mkdir(sub, 0o755)
				paths := bakeShards(t, dem, p, sub, n)
				for i, j := 0, len(paths)-1; i < j; i, j = i+1, j-1 {
					paths[i], paths[j] = paths[j], paths[i]
				}
				joined := shardOutputs(sub, "joined")
				var out []string
				for _, o := range joined {
					out = append(out, o.Path)
				}
				got, err := Join(context.Background(), JoinConfig{Parts: openPartials(t, paths), Paths: out})
				if err != nil {
					t.Fatal(err)
				}
				for i := range whole {
					a, _ := os.ReadFile(whole[i].Path)
					b, err := os.ReadFile(out[i])
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a, b) || got[i] != want[i] {
						t.Errorf("%d shards, output %s: joined store differs (%d vs %d bytes; stats %+v vs %+v)", n, whole[i].Label, len(b), len(a), got[i], want[i])
					}
				}
				if n == 3 {
					before, _ := os.ReadFile(paths[1])
					bakeShards(t, dem, p, sub, n)
					after, _ := os.ReadFile(paths[1])
					if !bytes.Equal(before, after) || len(before) == 0 {
						t.Error("re-running a shard changed its partial file")
					}
				}
			}
		})
	}
}

// TestJoinRefuses gives Join partials that do not belong together or are
// damaged: each gives one error naming the file or the shards, and no store
// is left behind.
func TestJoinRefuses(t *testing.T) {
	dem := loadWindow(t, "N44W072.hgt", heightmap.Window{Col: 830, Row: 860, Width: 20, Height: 17})
	p := horizon.ThesisParams()
	p.Sectors = 64
	dir := t.TempDir()
	three := bakeShards(t, dem, p, dir, 3)
	odir := filepath.Join(dir, "other")
	os.Mkdir(odir, 0o755)
	q := p
	q.Sectors = 32
	other := bakeShards(t, dem, q, odir, 3)
	fdir := filepath.Join(dir, "n4")
	os.Mkdir(fdir, 0o755)
	four := bakeShards(t, dem, p, fdir, 4)
	cdir := filepath.Join(dir, "cons")
	os.Mkdir(cdir, 0o755)
	c := p
	c.LOS = horizon.LOSConservative
	cons := bakeShards(t, dem, c, cdir, 3)
	damage := func(name string, edit func(b []byte) []byte) string {
		b, _ := os.ReadFile(three[1])
		path := filepath.Join(dir, name)
		os.WriteFile(path, edit(bytes.Clone(b)), 0o644)
		return path
	}
	flipped := damage("flipped", func(b []byte) []byte { b[len(b)*2/3] ^= 0x10; return b })
	truncated := damage("truncated", func(b []byte) []byte { return b[:len(b)*3/4] })
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing", []string{three[0], three[2]}, "shard 1 of 3 (0-based) missing"},
		{"twice", []string{three[0], three[1], three[1], three[2]}, "shard 1/3 given twice"},
		{"other params", []string{three[0], other[1], three[2]}, "differ in visibility parameters"},
		{"other count", []string{three[0], three[1], four[2]}, "differ in shard count"},
		{"other model", []string{three[0], cons[1], three[2]}, "differ in visibility model (sector v1 vs conservative v1)"},
		{"flipped byte", []string{three[0], flipped, three[2]}, "flipped"},
		{"truncated", []string{three[0], truncated, three[2]}, "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			var parts []*Partial
			var err error
			for _, path := range tc.paths {
				var pt *Partial
				if pt, err = OpenPartial(path); err != nil {
					break
				}
				defer pt.Close()
				parts = append(parts, pt)
			}
			if err == nil {
				_, err = Join(context.Background(), JoinConfig{Parts: parts, Paths: []string{out + "-1", out + "-2", out + "-3", out + "-4", out + "-5"}})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line naming %q", err, tc.want)
			}
			// A flipped byte is found by the tree checks or, past them, by the
			// checksum at the end of the records.
			var corrupt *compress.PartError
			var tree *quadpvs.FormatError
			if tc.name == "missing" && !errors.Is(err, ErrMismatch) ||
				tc.name == "flipped byte" && !errors.As(err, &corrupt) && !errors.As(err, &tree) && !errors.Is(err, ErrBadPartial) {
				t.Errorf("error %v of the wrong kind", err)
			}
			if left, _ := filepath.Glob(out + "*"); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".out*")); len(left) > 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

// TestJoinRefusesOtherVersions: partials of one model baked by builds
// whose model versions differ (here shard 1 as a build from before versions
// wrote it) are refused, naming both versions; so is a resume (differ).
func TestJoinRefusesOtherVersions(t *testing.T) {
	dem := loadWindow(t, "N44W072.hgt", heightmap.Window{Col: 830, Row: 860, Width: 20, Height: 17})
	p := horizon.DefaultParams()
	p.Sectors, p.LOS = 32, horizon.LOSConservative
	paths := bakeShards(t, dem, p, t.TempDir(), 2)
	var parts []*Partial
	for _, path := range paths {
		pt, err := OpenPartial(path)
		if err != nil {
			t.Fatal(err)
		}
		defer pt.Close()
		parts = append(parts, pt)
	}
	if _, err := CheckPartials(parts); err != nil {
		t.Fatalf("this build's partials: %v", err)
	}
	pr := *parts[1].PartReader
	old := Partial{Path: parts[1].Path, PartReader: &pr}
	old.Header.Outputs = slices.Clone(old.Header.Outputs)
	for i := range old.Header.Outputs {
		old.Header.Outputs[i].Store.Params.LOS, old.Header.Outputs[i].Store.Params.LOSVersion = "", 0
	}
	_, err := CheckPartials([]*Partial{parts[0], &old})
	want := "differ in visibility model version (conservative v1 vs conservative (unversioned)"
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrMismatch) {
		t.Errorf("got %v, want %q", err, want)
	}
}
