package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// runGeoTIFFBench is `go run ./bench geotiff`: how the GeoTIFF reader of
// builds without GDAL compares with GDAL's in time and memory. It warps
// the HGT tile to an n² Float32 GeoTIFF, Deflate-compressed in 256²
// tiles, with and without the floating-point predictor (gdal_translate),
// builds pvsbake with cgo (GDAL reads) and without (heightmap's own
// reader), and times `pvsbake info` (which loads every cell) of each file
// by each build, alternating, --runs times, on one core (GOMAXPROCS=1)
// and on all: median wall time and peak RSS.
func runGeoTIFFBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench geotiff", "bench geotiff [--size 4097] [--runs 5] [--out bench/results]", stderr)
	hgt := fs.String("hgt", "../shared/data/N44W072.hgt", "the HGT `tile` the GeoTIFF is warped from")
	size := fs.Int("size", 4097, "GeoTIFF `cells` a side")
	runs := fs.Int("runs", 5, "timed `runs` per build, file and core count")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	tmp := fs.String("tmp", filepath.Join(os.TempDir(), "pvs-geotiff"), "`folder` for the GeoTIFFs and the builds")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if *size < 16 || *runs < 1 {
		return cli.Usagef("--size ≥ 16 and --runs ≥ 1")
	}
	if err := os.MkdirAll(*tmp, 0o755); err != nil {
		return err
	}
	files := []struct{ name, predictor string }{{"deflate", "1"}, {"deflate-pred3", "3"}}
	for _, f := range files {
		cmd := exec.Command("gdal_translate", "-q", "-outsize", fmt.Sprint(*size), fmt.Sprint(*size), "-ot", "Float32", "-r", "bilinear",
			"-co", "TILED=YES", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR="+f.predictor, *hgt, filepath.Join(*tmp, f.name+".tif"))
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("gdal_translate: %v: %s", err, b)
		}
	}
	builds := []struct{ name, cgo string }{{"GDAL (cgo)", "1"}, {"own reader (CGO_ENABLED=0)", "0"}}
	bins := make([]string, len(builds))
	for i, b := range builds {
		bins[i] = filepath.Join(*tmp, fmt.Sprintf("pvsbake-cgo%s", b.cgo))
		cmd := exec.Command("go", "build", "-o", bins[i], "./cmd/pvsbake")
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+b.cgo)
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v: %s", err, o)
		}
	}
	type key struct{ file, build, procs int }
	walls, peaks := map[key][]time.Duration{}, map[key][]int64{}
	procs := []int{1, runtime.NumCPU()}
	for range *runs {
		for fi, f := range files {
			for pi, p := range procs {
				for bi := range builds { // alternating builds, run after run
					cmd := exec.Command(bins[bi], "info", filepath.Join(*tmp, f.name+".tif"))
					cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", p))
					start := time.Now()
					peak, err := runPeakRSS(cmd)
					if err != nil {
						return fmt.Errorf("%s info %s: %v", bins[bi], f.name, err)
					}
					k := key{fi, bi, pi}
					walls[k] = append(walls[k], time.Since(start))
					peaks[k] = append(peaks[k], peak)
				}
			}
		}
	}
	dir, err := newResultsSubdir(*out, "geotiff-"+machineTag())
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Loading a GeoTIFF without GDAL, %s\n\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "`go run ./bench geotiff` on %s (%d cores, Go %s): `pvsbake info` (loads every cell) of a %d² Float32 GeoTIFF, Deflate in 256² tiles, warped from %s; each build %d runs, alternating; median wall time and peak RSS. Ratio: own reader ÷ GDAL.\n\n",
		cpuModel(), runtime.NumCPU(), strings.TrimPrefix(runtime.Version(), "go"), *size, filepath.Base(*hgt), *runs)
	fmt.Fprintln(&b, "| file | cores | GDAL | own reader | time ratio | GDAL peak RSS | own peak RSS | memory ratio |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	for fi, f := range files {
		for pi, p := range procs {
			g, o := key{fi, 0, pi}, key{fi, 1, pi}
			tg, to := median(walls[g]), median(walls[o])
			mg, mo := medianInt(peaks[g]), medianInt(peaks[o])
			fmt.Fprintf(&b, "| %s | %d | %.2f s | %.2f s | %.2f× | %.0f MB | %.0f MB | %.2f× |\n", f.name, p, tg.Seconds(), to.Seconds(),
				to.Seconds()/tg.Seconds(), float64(mg)/1e6, float64(mo)/1e6, float64(mo)/float64(mg))
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, "README.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	}); err != nil {
		return err
	}
	fmt.Fprint(stdout, b.String())
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
