package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// scalingRow is one bake of `bench scaling`.
type scalingRow struct {
	Workers int
	Wall    time.Duration // the bake itself, as pvsbake reports it (after loading the DEM)
	CPU     time.Duration // user + system of the whole process
	PeakRSS int64         // bytes
}

// runScalingBench bakes one DEM window at 1, 2, 4 … N workers with pvsbake
// as a child process and writes each bake's time and the parallel
// efficiency T(1) ÷ (n·T(n)).
func runScalingBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench scaling", "bench scaling [--dem FILE] [--window C,R,W,H] [--workers 1,2,4,…] [--pvsbake BIN] [--out bench/results]", stderr)
	dem := fs.String("dem", "../shared/data/N44W072.hgt", "the `DEM` (a RAW heightmap needs --cell-size and --height-range, as pvsbake does)")
	window := fs.String("window", "700,700,316,316", "`window` of the DEM (\"\": the whole raster)")
	cellSize := fs.String("cell-size", "", "pvsbake's --cell-size, in `metres` (for a RAW heightmap)")
	heightRange := fs.String("height-range", "", "pvsbake's --height-range `MIN,MAX` metres (for a RAW heightmap)")
	maxDist := fs.Float64("max-distance", 0, "view distance in `metres` (0: none)")
	los := fs.String("los", "conservative", "visibility `model`")
	budget := fs.String("budget", "1GiB", "the bake's `budget`")
	defWorkers := []string{}
	for n := 1; n < runtime.NumCPU(); n *= 2 {
		defWorkers = append(defWorkers, strconv.Itoa(n))
	}
	defWorkers = append(defWorkers, strconv.Itoa(runtime.NumCPU()))
	workersFlag := fs.String("workers", strings.Join(defWorkers, ","), "worker `counts`, one bake each, in this order")
	bin := fs.String("pvsbake", "", "a built pvsbake `binary` to time (\"\": build ./cmd/pvsbake, as make does)")
	tmp := fs.String("tmp", filepath.Join(os.TempDir(), "pvs-scaling"), "`folder` for the store (deleted after each bake)")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	var counts []int
	for _, s := range strings.Split(*workersFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return cli.Usagef("--workers %q: want positive worker counts separated by commas", *workersFlag)
		}
		counts = append(counts, n)
	}
	if err := os.MkdirAll(*tmp, 0o755); err != nil {
		return err
	}
	if *bin == "" {
		b, err := buildPvsbake(*tmp, stderr)
		if err != nil {
			return err
		}
		*bin = b
	}
	bakeArgs := []string{"bake", *dem, "-o", filepath.Join(*tmp, "scaling.pvs"), "--budget", *budget, "--los", *los, "--yes"}
	if *window != "" {
		bakeArgs = append(bakeArgs, "--window", *window)
	}
	if *cellSize != "" {
		bakeArgs = append(bakeArgs, "--cell-size", *cellSize)
	}
	if *heightRange != "" {
		bakeArgs = append(bakeArgs, "--height-range", *heightRange)
	}
	if *maxDist > 0 {
		bakeArgs = append(bakeArgs, "--max-distance", strconv.FormatFloat(*maxDist, 'f', -1, 64))
	}
	dir, err := newResultsSubdir(*out, "scaling-"+machineTag())
	if err != nil {
		return err
	}
	var rows []scalingRow
	points, kernels := 0, ""
	for _, n := range counts {
		a := append(append([]string{}, bakeArgs...), "--workers", strconv.Itoa(n))
		br, err := runBake(exec.Command(*bin, a...), nil)
		os.Remove(filepath.Join(*tmp, "scaling.pvs"))
		if err != nil {
			return err
		}
		points, kernels = br.Points, br.Kernels
		r := scalingRow{Workers: n, Wall: br.Wall, CPU: br.CPU, PeakRSS: br.PeakRSS}
		rows = append(rows, r)
		fmt.Fprintf(stdout, "%d workers: %.1f s (CPU %.1f s), efficiency %.0f%%\n", n, r.Wall.Seconds(), r.CPU.Seconds(), 100*efficiency(rows, len(rows)-1))
		if err := writeScaling(dir, rows, bakeArgs, points, kernels); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}

// efficiency is row i's parallel efficiency against the first row:
// T(n0)·n0 ÷ (T(n)·n), which is T(1) ÷ (n·T(n)) when the first bake had
// one worker.
func efficiency(rows []scalingRow, i int) float64 {
	a, b := rows[0], rows[i]
	return a.Wall.Seconds() * float64(a.Workers) / (b.Wall.Seconds() * float64(b.Workers))
}

// writeScaling writes scaling.csv and README.md into dir.
func writeScaling(dir string, rows []scalingRow, bakeArgs []string, points int, kernels string) error {
	err := atomicfile.Write(filepath.Join(dir, "scaling.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"workers", "wall_s", "cpu_s", "peak_rss_bytes", "speedup", "efficiency", "points_per_s"})
		for i, r := range rows {
			cw.Write([]string{strconv.Itoa(r.Workers), fmt.Sprintf("%.2f", r.Wall.Seconds()), fmt.Sprintf("%.2f", r.CPU.Seconds()),
				fmt.Sprint(r.PeakRSS), fmt.Sprintf("%.3f", rows[0].Wall.Seconds()/r.Wall.Seconds()), fmt.Sprintf("%.3f", efficiency(rows, i)),
				fmt.Sprintf("%.0f", float64(points)/r.Wall.Seconds())})
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "README.md"), func(w io.Writer) error {
		fmt.Fprintf(w, "# Bake scaling, %s\n\n", time.Now().UTC().Format("2006-01-02"))
		fmt.Fprintf(w, "`go run ./bench scaling` on %s (%d cores, %s kernels, Go %s): `pvsbake %s --workers N`, one bake per worker count, one after the other, %d points. Wall is the bake's own time (after loading the DEM); CPU is user + system time of the whole process; efficiency is T(%d)·%d ÷ (T(N)·N).\n\n",
			cpuModel(), runtime.NumCPU(), kernels, strings.TrimPrefix(runtime.Version(), "go"), strings.Join(bakeArgs, " "), points, rows[0].Workers, rows[0].Workers)
		fmt.Fprintln(w, "| workers | wall | CPU | peak RSS | speed-up | efficiency | points/s |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for i, r := range rows {
			fmt.Fprintf(w, "| %d | %.1f s | %.1f s | %.0f MB | %.2f× | %.0f%% | %.0f |\n", r.Workers, r.Wall.Seconds(), r.CPU.Seconds(),
				float64(r.PeakRSS)/1e6, rows[0].Wall.Seconds()/r.Wall.Seconds(), 100*efficiency(rows, i), float64(points)/r.Wall.Seconds())
		}
		return nil
	})
}
