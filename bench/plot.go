package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotKind is one quantity the plots show: its file name part, axis label,
// value per query and mean per case.
type plotKind struct {
	name, label string
	val         func(x runRow) float64
	mean        func(s summary) float64
}

var plotKinds = []plotKind{
	{"time", "running time (ms)", func(x runRow) float64 { return x.MS }, func(s summary) float64 { return s.meanMS }},
	{"size", "frontier set size (points)", func(x runRow) float64 { return float64(max(x.Points, 1)) }, func(s summary) float64 { return s.meanPoints }},
}

// writePlots draws, per terrain and accounting, the distributions of running
// time and frontier set size of every case as box plots (like Figures 4.1,
// 4.2, 4.4, 4.5) from r's runs, and the trends of the means against the
// limit (Figures 4.3 and 4.6, writeTrends), as PNG.
func writePlots(dir string, r *report, sums []summary) error {
	for _, t := range r.terrains {
		for _, acc := range r.accountingsUsed() {
			for _, m := range plotKinds {
				if err := boxes(filepath.Join(dir, fmt.Sprintf("%s-%s-%s.png", m.name, t.Name, acc)), r, t.Name, acc, m.label, m.val); err != nil {
					return err
				}
			}
		}
	}
	return writeTrends(dir, r, sums)
}

// writeTrends draws trend-{time,size}-TERRAIN-ACCOUNTING.png, the cases'
// means against the limit (Figures 4.3 and 4.6), from sums alone: what
// summary.csv keeps, so that results folders need not keep these plots
// (--replot draws them again).
func writeTrends(dir string, r *report, sums []summary) error {
	for _, t := range r.terrains {
		for _, acc := range r.accountingsUsed() {
			for _, m := range plotKinds {
				if err := trend(filepath.Join(dir, fmt.Sprintf("trend-%s-%s-%s.png", m.name, t.Name, acc)), r, sums, t.Name, acc, m.label, m.mean); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// widenLogRange gives a log-scale Y axis whose data are a single value a
// decade either side (plot would widen it by ±1, below zero).
func widenLogRange(p *plot.Plot) {
	if p.Y.Max <= p.Y.Min {
		p.Y.Min, p.Y.Max = p.Y.Min/math.Sqrt(10), p.Y.Max*math.Sqrt(10)
	}
}

func boxes(path string, r *report, terrain, acc, label string, val func(runRow) float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s terrain, %s accounting", terrain, acc)
	p.Y.Label.Text = label
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var names []string
	x := 0.0
	for _, lim := range r.limitsGiB {
		for ci, col := range columns {
			var v plotter.Values
			for _, run := range r.runs {
				if run.Terrain == terrain && run.Accounting == acc && run.LimitGiB == lim && run.Method == col[0] && run.Merge == col[1] {
					v = append(v, val(run))
				}
			}
			if len(v) == 0 {
				continue
			}
			b, err := plotter.NewBoxPlot(vg.Points(10), x, v)
			if err != nil {
				return err
			}
			b.FillColor = plotutil.Color(ci)
			p.Add(b)
			names = append(names, fmt.Sprintf("%g %s/%s", lim, col[0][:4], col[1][:5]))
			x++
		}
	}
	widenLogRange(p)
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 1.2
	p.X.Tick.Label.XAlign = -1
	return p.Save(10*vg.Inch, 5*vg.Inch, path)
}

func trend(path string, r *report, sums []summary, terrain, acc, label string, mean func(summary) float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s terrain, %s accounting: means against the limit", terrain, acc)
	p.X.Label.Text = "memory limit (GiB)"
	p.Y.Label.Text = label
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	for ci, col := range columns {
		var pts plotter.XYs
		for _, s := range sums {
			if s.Terrain == terrain && s.Accounting == acc && s.Method == col[0] && s.Merge == col[1] {
				pts = append(pts, plotter.XY{X: s.LimitGiB, Y: max(mean(s), 1e-3)})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, sc.Color = plotutil.Color(ci), plotutil.Color(ci)
		sc.Shape = plotutil.Shape(ci)
		p.Add(l, sc)
		p.Legend.Add(col[0]+" "+col[1], l, sc)
	}
	widenLogRange(p)
	// Room above the highest line for the legend: a third of the decades
	// shown, on the log axis.
	p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, 1.0/3)
	p.Legend.Top = true
	p.BackgroundColor = color.White
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
