package savings

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/frontiersets/frontiersets/compress"
)

// WriteTable writes r as a table: two lines saying what was measured, then
// one line per store.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "%s: %d player pairs %s hidden both ways by exact line of sight (of %d drawn; eye %g m, top %g m above the ground)\n",
		r.Map, r.Pairs, within(r.ViewM), r.Drawn, r.ObserverM, r.TargetM)
	fmt.Fprintf(w, "a found pair walks apart at %g m/s, %g Hz, timed up to %g s; the crowd: %d players for %g s, AOI radius %.0f m; seed %d\n",
		r.SpeedMS, r.Hz, r.WalkSeconds, r.Players, r.Seconds, r.AOIRadiusM, r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\tfile\tmemory\tPVS cell\tfound\tsilent mean\tp10\tGQ pkt/s\tNPP pkt/s\tAOI pkt/s\tsaved vs NPP\tvs AOI\tGQ kB/s\t")
	points := false
	for _, x := range r.Rows {
		star := ""
		if !x.Positions {
			star, points = "*", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g m\t%.1f%%%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.1f%%\t%.1f%%\t%.1f\t\n",
			filepath.Base(x.Store), compress.FormatBytes(x.FileBytes), compress.FormatBytes(x.MemoryBytes), x.PVSCellM,
			100*x.FoundShare, star, silent(x.SilentMeanS, x.SilentMeanM, x.SilentMeanTicks), silent(x.SilentP10S, x.SilentP10M, x.SilentP10Ticks),
			x.GQPacketsPerS, x.NPPPacketsPerS, x.AOIPacketsPerS, 100*x.SavedVsNPP, 100*x.SavedVsAOI, x.GQBytesPerS/1e3)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "found: hidden pairs given a frontier set; silent: how long a found pair needs no updates while both walk (seconds, metres, ticks)")
	if points {
		fmt.Fprintln(w, "* pairs at the cells' sample points: the store's point model promises nothing between them")
	}
	var missed []string
	for _, x := range r.Rows {
		if x.GQMissed > 0 {
			missed = append(missed, fmt.Sprintf("%s missed %d pair-ticks", filepath.Base(x.Store), x.GQMissed))
		}
	}
	if len(missed) > 0 {
		fmt.Fprintf(w, "GQ against the uncompressed PVS: %s\n", strings.Join(missed, ", "))
	}
	if r.Recommended != "" {
		fmt.Fprintf(w, "recommended: %s, the smallest store within %g%% of the largest's packets saved\n", filepath.Base(r.Recommended), r.RecommendPct)
	}
	return nil
}

// silent formats a silence: seconds, metres and ticks.
func silent(s, m, ticks float64) string {
	return fmt.Sprintf("%.1f s %.0f m %.0f t", s, m, ticks)
}

// WritePNG draws r as a PNG: the packets the joint frontier saves against
// all-to-all and the share of hidden pairs found, against the store's file
// size, one curve of each per PVS cell and model.
func WritePNG(w io.Writer, r *Report) error {
	p := plot.New()
	p.Title.Text = "savings: " + r.Map
	p.X.Label.Text = "store file size (MB)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(logTicks125)
	p.Y.Label.Text = "%"
	p.Y.Min, p.Y.Max = 0, 100
	type series struct {
		name string
		rows []Row
	}
	var ss []series
	for _, x := range r.Rows {
		name := fmt.Sprintf("%g m %s", x.PVSCellM, x.Model)
		k := slices.IndexFunc(ss, func(s series) bool { return s.name == name })
		if k < 0 {
			ss = append(ss, series{name: name})
			k = len(ss) - 1
		}
		ss[k].rows = append(ss[k].rows, x)
	}
	lo, hi := 1e300, 0.0
	for i, s := range ss {
		slices.SortFunc(s.rows, func(a, b Row) int { return cmp.Compare(a.FileBytes, b.FileBytes) })
		saved, found := make(plotter.XYs, len(s.rows)), make(plotter.XYs, len(s.rows))
		for j, x := range s.rows {
			mb := max(float64(x.FileBytes)/1e6, 1e-3)
			lo, hi = min(lo, mb), max(hi, mb)
			saved[j] = plotter.XY{X: mb, Y: 100 * x.SavedVsNPP}
			found[j] = plotter.XY{X: mb, Y: 100 * x.FoundShare}
		}
		c := palette[i%len(palette)]
		for k, xy := range []plotter.XYs{saved, found} {
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			l.Color, pts.Color = c, c
			what := "packets saved vs all-to-all"
			if k == 1 {
				what = "hidden pairs found"
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				pts.Shape = draw.TriangleGlyph{}
			}
			p.Add(l, pts)
			p.Legend.Add(s.name+": "+what, l, pts)
		}
	}
	if hi <= lo { // one store: a decade either side
		lo, hi = lo/3, hi*3
	}
	p.X.Min, p.X.Max = lo/1.2, hi*1.2
	c := vgimg.PngCanvas{Canvas: vgimg.New(8*vg.Inch, 5*vg.Inch)}
	p.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// logTicks125 marks 1, 2 and 5 times each power of ten in [lo, hi],
// labelled, and the other whole multiples unlabelled.
func logTicks125(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * p
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0x2c, 0xa0, 0x2c, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
}
