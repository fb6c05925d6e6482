package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBakeBenchReport: the GDAL side-by-side timing runs on a small real
// window, and the report holds every case and the peer table.
func TestBakeBenchReport(t *testing.T) {
	open, _ := realDEMs(t)
	pc := bakeCase{Name: "hgt-48", DEM: filepath.Base(open), Window: "600,600,48,48"}
	pr, err := peerGDAL(pc, filepath.Dir(open), 6)
	if err != nil {
		t.Fatal(err)
	}
	if !(pr.GDAL > 0 && pr.Ours > 0 && pr.Bitmap > 0 && pr.Block > 0) || pr.Observers != 6 {
		t.Fatalf("peer timing %+v", pr)
	}
	rows := []bakeRow{
		{bakeCase: bakeCases[0], LOS: "conservative", Points: 99856, Wall: 45 * time.Second, Projected: 50 * time.Second, PeakRSS: 120e6, Estimate: 130e6, Workers: 2},
		{bakeCase: bakeCases[0], LOS: "sector", Points: 99856, Wall: 30 * time.Second, Projected: 35 * time.Second, PeakRSS: 120e6, Estimate: 130e6, Workers: 2},
		{bakeCase: bakeCases[3], LOS: "conservative", Points: 1442401, Wall: 200 * time.Second, PeakRSS: 480e6, Estimate: 510e6, Workers: 2},
	}
	dir := t.TempDir()
	if err := writeBakeResults(dir, rows, []peerRow{pr}, &tvRow{Size: 316, Sectors: 360, CPU: "Test CPU", Kernels: "avx512", Input: "GeoTIFF", TV: 16 * time.Second, TVCPU: 16 * time.Second,
		Models: []tvModel{{LOS: "conservative", Wall: 20 * time.Second, CPU: 24 * time.Second, Projected: 21 * time.Second}, {LOS: "sector", Wall: 12 * time.Second, CPU: 14 * time.Second}},
		Ours2:  11 * time.Second, Cores: 16, TVAll: 2 * time.Second, TVAllCPU: 30 * time.Second, TVThreads: 15, OursAll: 4 * time.Second, OursCPU: 60 * time.Second, Workers: 16}, "0.1GiB,1GiB"); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| hgt-316 | conservative | 700,700,316,316 | — | 99856 | 45s | 50s | — |", "| hgt-316 | sector | 700,700,316,316 | — | 99856 | 30s |",
		"| hgt-1201-2400m | conservative | whole | 2400 m | 1442401 |", "- hgt-316: 1.50×", "GDAL ÷ ours",
		"| Test CPU | avx512 | 16.0 s | 16.0 s | conservative | 20.0 s | 24.0 s | 21s | 1.25×, 1.50× |", "| sector | 12.0 s | 14.0 s | 0s | 0.75×, 0.88× |",
		"two workers: 11.0 s, the second core's speed-up 1.82×", "own 15 threads 2.00 s (CPU 30.0 s); ours, conservative model, 16 workers: 4.00 s (CPU 60.0 s), 2.00×", "`--sectors 360`"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "bake.csv"))
	if n := strings.Count(string(csv), "\n"); n != 4 {
		t.Errorf("bake.csv has %d lines, want a header and 3 rows", n)
	}
}

// TestShardBenchReport: the report sums the shards' CPU, adds the join to
// the shards' wall time, compares with the single bake, and the store
// comparison tells identical stores from differing ones.
func TestShardBenchReport(t *testing.T) {
	dir := t.TempDir()
	rows := []shardRow{
		{Role: "shard 0/2", Points: 100, Wall: 10 * time.Second, CPU: 9 * time.Second, PeakRSS: 200e6, Bytes: 1e6},
		{Role: "shard 1/2", Points: 90, Wall: 12 * time.Second, CPU: 11 * time.Second, PeakRSS: 210e6, Bytes: 1e6},
		{Role: "join", Wall: 2 * time.Second, CPU: 2 * time.Second, PeakRSS: 100e6, Bytes: 3e6},
		{Role: "single", Points: 190, Wall: 12 * time.Second, CPU: 20 * time.Second, PeakRSS: 300e6, Bytes: 3e6},
	}
	if err := writeShardResults(dir, "go run ./bench shard --case hgt-1201-2400m --shards 2", bakeCases[3], "0.1GiB", rows, 12*time.Second, "byte-identical (1 stores)"); err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	csv, _ := os.ReadFile(filepath.Join(dir, "shard.csv"))
	for _, want := range []string{"view distance 2400 m", "CPU 20.0 s", "14.0 s in all", "sharded ÷ single 1.17×", "| shard 1/2 | 90 | 12.0 s |"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
	if !strings.Contains(string(csv), "hgt-1201-2400m,join,0,2.0,2.0,100000000,3000000\n") {
		t.Errorf("shard.csv:\n%s", csv)
	}
	work := t.TempDir()
	for name, body := range map[string]string{"joined-a.pvs": "x", "single-a.pvs": "x", "joined-b.pvs": "y", "single-b.pvs": "y"} {
		os.WriteFile(filepath.Join(work, name), []byte(body), 0o644)
	}
	if got, err := compareStores(work); err != nil || got != "byte-identical (2 stores)" {
		t.Errorf("compareStores: %q, %v", got, err)
	}
	os.WriteFile(filepath.Join(work, "single-b.pvs"), []byte("z"), 0o644)
	if got, _ := compareStores(work); !strings.Contains(got, "DIFFER") {
		t.Errorf("differing stores: %q", got)
	}
}

// TestScalingReport: efficiency is measured against the first bake, and
// the report names the machine and the kernels.
func TestScalingReport(t *testing.T) {
	rows := []scalingRow{{Workers: 1, Wall: 100 * time.Second, CPU: 101 * time.Second, PeakRSS: 200e6},
		{Workers: 2, Wall: 50 * time.Second}, {Workers: 4, Wall: 40 * time.Second}}
	if e := efficiency(rows, 2); e != 0.625 {
		t.Errorf("efficiency at 4 workers %v, want 0.625", e)
	}
	dir := t.TempDir()
	if err := writeScaling(dir, rows, []string{"bake", "x.raw"}, 1000, "avx512"); err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	csv, _ := os.ReadFile(filepath.Join(dir, "scaling.csv"))
	for _, want := range []string{"avx512 kernels", "`pvsbake bake x.raw --workers N`", "| 4 | 40.0 s | 0.0 s | 0 MB | 2.50× | 62% | 25 |", cpuModel()} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
	if !strings.Contains(string(csv), "\n2,50.00,0.00,0,2.000,1.000,20\n") {
		t.Errorf("scaling.csv:\n%s", csv)
	}
	if tag := machineTag(); strings.ContainsAny(tag, " ()/") || !strings.Contains(tag, "c-") {
		t.Errorf("machine tag %q", tag)
	}
}

// TestProjectedLine: the projection is read from pvsbake's first line,
// with and without the peak memory it projects.
func TestProjectedLine(t *testing.T) {
	for line, want := range map[string]string{
		"pvsbake: 263169 points, PVS cells of 8 m, region model v2, about 1.1ms per point on one core (timed on 5376, avx2 kernels): projected 2m28s and 466.37 MB of memory at the peak with 2 workers": "2m28s",
		"pvsbake: 65536 points, region model v2, about 844µs per point on one core (timed on 1024, avx2 kernels): projected 28s with 2 workers":                                                          "28s",
	} {
		if p := projectedRE.FindStringSubmatch(line); p == nil || p[1] != want {
			t.Errorf("%q: %q, want %s", line, p, want)
		}
	}
}
