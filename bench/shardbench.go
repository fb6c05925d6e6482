package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// shardRow is one process of a sharded bake benchmark: a shard, the join,
// or the single bake it is compared with.
type shardRow struct {
	Role    string // "shard i/N", "join", "single"
	Points  int    // points baked (0 for the join)
	Wall    time.Duration
	CPU     time.Duration // user + system
	PeakRSS int64         // bytes
	Bytes   int64         // partial file, or the stores written
}

// runShardBench bakes one case of bakeCases as N shards, P at a time, each
// its own process with one worker, joins them, optionally bakes it as a
// single process with every core, compares the stores byte for byte, and
// writes shard.csv and README.md into a new results folder.
func runShardBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench shard", "bench shard --case NAME [--shards 8] [--parallel 2] [--single] [--max-distance M] [--out bench/results]", stderr)
	name := fs.String("case", "hgt-1201", "the `case` of bench bake to bake")
	n := fs.Int("shards", 8, "`N` shards")
	par := fs.Int("parallel", 2, "shards run at once, one worker each")
	single := fs.Bool("single", false, "also bake as one process with every core and compare the stores")
	dist := fs.Float64("max-distance", -1, "override the case's view distance in `metres` (-1: the case's)")
	data := fs.String("data", "../shared/data", "`folder` of the real DEMs")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	tmp := fs.String("tmp", filepath.Join(os.TempDir(), "pvs-shardbench"), "`folder` for the partials and stores (deleted at the end)")
	budgets := fs.String("budget", "0.1GiB,0.25GiB,0.5GiB,1GiB", "the `budgets` of the bake")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	var c *bakeCase
	for i := range bakeCases {
		if bakeCases[i].Name == *name {
			c = &bakeCases[i]
		}
	}
	if c == nil || *n < 1 || *par < 1 {
		return cli.Usagef("bench shard: --case must name a case of bench bake, --shards and --parallel ≥ 1")
	}
	bc := *c
	if *dist >= 0 {
		bc.MaxDistance = *dist
	}
	if bc.Budgets != "" {
		*budgets = bc.Budgets
	}
	work := filepath.Join(*tmp, bc.Name)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(*tmp, "pvsbake")
	build := exec.Command("go", "build", "-o", bin, "./cmd/pvsbake")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build pvsbake: %w", err)
	}
	dem, err := caseDEM(bc, bin, *data, *tmp, stderr)
	if err != nil {
		return err
	}
	flags := []string{"--budget", *budgets, "--quiet"}
	if bc.Window != "" {
		flags = append(flags, "--window", bc.Window)
	}
	if bc.MaxDistance > 0 {
		flags = append(flags, "--max-distance", strconv.FormatFloat(bc.MaxDistance, 'f', -1, 64))
	}
	rows := make([]shardRow, *n)
	errs := make([]error, *n)
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range *par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				part := filepath.Join(work, fmt.Sprintf("part-%d", i))
				r, so, err := timed(bin, append([]string{"bake", "--yes", dem, "-o", part, "--shard", fmt.Sprintf("%d/%d", i, *n), "--workers", "1"}, flags...), stderr)
				r.Role = fmt.Sprintf("shard %d/%d", i, *n)
				if m := shardPointsRE.FindStringSubmatch(so); m != nil {
					r.Points, _ = strconv.Atoi(m[1])
				}
				if fi, err := os.Stat(part); err == nil {
					r.Bytes = fi.Size()
				}
				rows[i], errs[i] = r, err
				fmt.Fprintf(stdout, "%s: %d points in %s, peak RSS %s\n", r.Role, r.Points, r.Wall.Round(time.Second), compress.FormatBytes(r.PeakRSS))
			}
		}()
	}
	for i := range *n {
		next <- i
	}
	close(next)
	wg.Wait()
	shardsWall := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	parts, _ := filepath.Glob(filepath.Join(work, "part-*"))
	jr, _, err := timed(bin, append([]string{"join", "-o", filepath.Join(work, "joined"), "--quiet"}, parts...), stderr)
	if err != nil {
		return err
	}
	jr.Role = "join"
	jr.Bytes = globBytes(filepath.Join(work, "joined*.pvs"))
	fmt.Fprintf(stdout, "join: %s, peak RSS %s\n", jr.Wall.Round(time.Second), compress.FormatBytes(jr.PeakRSS))
	rows = append(rows, jr)
	identical := "not compared (no --single)"
	if *single {
		sr, _, err := timed(bin, append([]string{"bake", "--yes", dem, "-o", filepath.Join(work, "single")}, flags...), stderr)
		if err != nil {
			return err
		}
		sr.Role = "single"
		for _, r := range rows[:*n] {
			sr.Points += r.Points
		}
		sr.Bytes = globBytes(filepath.Join(work, "single*.pvs"))
		rows = append(rows, sr)
		fmt.Fprintf(stdout, "single: %s, peak RSS %s\n", sr.Wall.Round(time.Second), compress.FormatBytes(sr.PeakRSS))
		identical, err = compareStores(work)
		if err != nil {
			return err
		}
	}
	dir, err := newResultsDir(*out)
	if err != nil {
		return err
	}
	if err := writeShardResults(dir, "go run ./bench shard "+strings.Join(args, " "), bc, *budgets, rows, shardsWall, identical); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "stores %s; wrote %s\n", identical, dir)
	return nil
}

var shardPointsRE = regexp.MustCompile(`shard \d+/\d+, (\d+) points`)

// caseDEM returns the DEM path of c, writing the synthetic terrain once.
func caseDEM(c bakeCase, bin, data, tmp string, log io.Writer) (string, error) {
	size, ok := strings.CutPrefix(c.DEM, "synth:")
	if !ok {
		return filepath.Join(data, c.DEM), nil
	}
	dem := filepath.Join(tmp, "synth-"+size+".tif")
	if _, err := os.Stat(dem); err == nil {
		return dem, nil
	}
	cmd := exec.Command(bin, "synth", "--kind", "hills", "--size", size, "--cell-size", "30", "--relief", "800", "--seed", "1", "-o", dem)
	cmd.Stderr = log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("synth: %w", err)
	}
	return dem, nil
}

// timed runs bin with args as a child process and measures it.
func timed(bin string, args []string, log io.Writer) (shardRow, string, error) {
	var so bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &so, log
	start := time.Now()
	peak, err := runPeakRSS(cmd)
	r := shardRow{Wall: time.Since(start), PeakRSS: peak}
	if err != nil {
		return r, so.String(), fmt.Errorf("pvsbake %s: %w", strings.Join(args, " "), err)
	}
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r, so.String(), nil
}

func globBytes(pattern string) int64 {
	files, _ := filepath.Glob(pattern)
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// compareStores compares every joined store in work with the single bake's.
func compareStores(work string) (string, error) {
	joined, _ := filepath.Glob(filepath.Join(work, "joined*.pvs"))
	if len(joined) == 0 {
		return "", fmt.Errorf("no joined stores in %s", work)
	}
	for _, j := range joined {
		s := filepath.Join(work, "single"+strings.TrimPrefix(filepath.Base(j), "joined"))
		a, err := os.ReadFile(j)
		if err != nil {
			return "", err
		}
		b, err := os.ReadFile(s)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("DIFFER (%s)", filepath.Base(j)), nil
		}
	}
	return fmt.Sprintf("byte-identical (%d stores)", len(joined)), nil
}

// writeShardResults writes shard.csv and README.md into dir.
func writeShardResults(dir, cmdline string, c bakeCase, budgets string, rows []shardRow, shardsWall time.Duration, identical string) error {
	err := atomicfile.Write(filepath.Join(dir, "shard.csv"), func(w io.Writer) error {
		fmt.Fprintln(w, "case,role,points,wall_s,cpu_s,peak_rss_bytes,file_bytes")
		for _, r := range rows {
			fmt.Fprintf(w, "%s,%s,%d,%.1f,%.1f,%d,%d\n", c.Name, r.Role, r.Points, r.Wall.Seconds(), r.CPU.Seconds(), r.PeakRSS, r.Bytes)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Sharded bake: %s\n\n", c.Name)
	fmt.Fprintf(&b, "`%s` (budgets %s", cmdline, budgets)
	if c.MaxDistance > 0 {
		fmt.Fprintf(&b, ", view distance %.0f m", c.MaxDistance)
	}
	fmt.Fprintf(&b, "): the shards as separate processes with one worker each, then the join; stores %s.\n\n", identical)
	b.WriteString("| process | points | wall | CPU | peak RSS | file |\n|---|---|---|---|---|---|\n")
	var cpu time.Duration
	var join, single *shardRow
	for i := range rows {
		r := &rows[i]
		fmt.Fprintf(&b, "| %s | %d | %.1f s | %.1f s | %s | %s |\n", r.Role, r.Points, r.Wall.Seconds(), r.CPU.Seconds(), compress.FormatBytes(r.PeakRSS), compress.FormatBytes(r.Bytes))
		switch r.Role {
		case "join":
			join = r
		case "single":
			single = r
		default:
			cpu += r.CPU
		}
	}
	total := shardsWall + join.Wall
	fmt.Fprintf(&b, "\nShards %.1f s of wall time (CPU %.1f s), join %.1f s: %.1f s in all", shardsWall.Seconds(), cpu.Seconds(), join.Wall.Seconds(), total.Seconds())
	if single != nil {
		fmt.Fprintf(&b, "; the single bake %.1f s (sharded ÷ single %.2f×)", single.Wall.Seconds(), total.Seconds()/single.Wall.Seconds())
	}
	b.WriteString(".\n")
	b.WriteString("\nWall times include loading the DEM; CPU is user + system time from each child's rusage; file is the partial file, or the stores written.\n")
	return atomicfile.Write(filepath.Join(dir, "README.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}
