package sim

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/bots"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/internal/testdem"
	"github.com/frontiersets/frontiersets/quadpvs"
)

func bakeWindow(t *testing.T, path string, win heightmap.Window, cp compress.Cap) (*compress.Store, *grow.Grower) {
	t.Helper()
	p := horizon.ThesisParams()
	p.Sectors = 256
	return bakeWith(t, path, win, cp, p)
}

// bakeWith is bakeWindow with parameters p.
func bakeWith(t *testing.T, path string, win heightmap.Window, cp compress.Cap, p horizon.Params) (*compress.Store, *grow.Grower) {
	t.Helper()
	if filepath.Dir(path) == "." { // a real DEM by name: its committed crop
		path, win = testdem.Path(t, path, win)
	}
	dem, err := heightmap.Load(path, heightmap.Options{Window: win})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "s.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: out, Cap: cp, Budget: 1 << 30}}}); err != nil {
		t.Fatal(err)
	}
	s, err := bake.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
	if err != nil {
		t.Fatal(err)
	}
	return s, gr
}

// TestRealPositions: the exact audit tests line of sight between the bots'
// real positions, and on a store of the region model, whose frontier sets
// hold for positions anywhere in their cells, FB's silent pairs see each
// other at none of them, with or without a view distance (which ends the
// audit's lines of sight too; the sector model's store, for comparison, is
// logged).
func TestRealPositions(t *testing.T) {
	win := heightmap.Window{Col: 280, Row: 180, Width: 64, Height: 64}
	for _, tc := range []struct {
		los  horizon.LOS
		dist float64
	}{{horizon.LOSRegion, 0}, {horizon.LOSRegion, 15}, {horizon.LOSSector, 0}} {
		los := tc.los
		p := horizon.DefaultParams()
		p.Sectors, p.LOS, p.MaxDistance = 256, los, tc.dist
		s, gr := bakeWith(t, "annarbor-dsm-2ft.tif", win, compress.Cap{Nodes: 60}, p)
		bo := bots.Defaults(s.DxM, s.DyM)
		bo.Bots, bo.Ticks, bo.SpeedMS, bo.MaxSlope = 8, 300, bo.SpeedMS*4, 3
		r, err := Run(s, gr, Config{Bots: bo, Grow: grow.Options{Merge: quadpvs.Lossy}, Extend: true, Predict: 3, ExactEvery: 1, Workers: 2, SnapshotTick: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v, view distance %g m: %d of %d silent (tick, pair) see each other between real positions", los, tc.dist, r.ExactMissed, r.ExactChecked)
		if los == horizon.LOSRegion && (r.ExactChecked < 100 || r.ExactMissed != 0) {
			t.Errorf("region model: %d of %d silent pairs see each other between real positions, want 0 of at least 100", r.ExactMissed, r.ExactChecked)
		}
	}
}

// TestRunCounts checks the schemes' counts against each other on an
// uncapped store, where the store's per-point PVS is the uncompressed one:
// CS relays exactly PPP's packets, FB and FBP miss nothing and send at
// least PPP's, so do GQ and RP (their packets the sums of their kinds), NPP is n(n−1) per tick, and an AOI radius spanning the
// terrain is NPP, for AOI and for VON (no discovery then); VON misses at
// most AOI's plus the pairs of links discovered that tick; HY lies between
// CSA plus GQ's updates and CSA plus all of GQ. A capped store keeps FB's audit at 0.
func TestRunCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
		win  heightmap.Window
		cap  compress.Cap
	}{
		{"demo", "../../data/demo-hills.tif", heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}, compress.Cap{Codes: 1 << 30}},
		{"urban", "annarbor-dsm-2ft.tif", heightmap.Window{Col: 280, Row: 180, Width: 64, Height: 64}, compress.Cap{Codes: 1 << 30}},
		{"urban-capped", "annarbor-dsm-2ft.tif", heightmap.Window{Col: 280, Row: 180, Width: 64, Height: 64}, compress.Cap{Nodes: 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, gr := bakeWindow(t, tc.path, tc.win, tc.cap)
			bo := bots.Defaults(s.DxM, s.DyM)
			bo.Bots, bo.Ticks, bo.SpeedMS, bo.MaxSlope, bo.RespawnPerMin = 6, 300, bo.SpeedMS*4, 3, 2
			for _, radius := range []float64{0, 1e7} {
				r, err := Run(s, gr, Config{Bots: bo, Grow: grow.Options{Merge: quadpvs.Lossy}, Extend: true, Predict: 3,
					AOIRadiusM: radius, ExactEvery: 7, Workers: 2, SnapshotTick: 100})
				if err != nil {
					t.Fatal(err)
				}
				rows := map[Scheme]Row{}
				for k, row := range r.Rows {
					if row.Scheme != Schemes[k] || row.Ticks != 300 {
						t.Fatalf("row %d: %+v", k, row)
					}
					rows[row.Scheme] = row
				}
				n, T := int64(6), int64(300)
				exact := tc.cap.Nodes == 0
				switch {
				case rows[NPP].Packets != n*(n-1)*T:
					t.Errorf("NPP %d packets", rows[NPP].Packets)
				case exact && rows[CS].Packets != n*T+rows[PPP].Packets:
					t.Errorf("CS %d packets, PPP %d: the uncapped store relays exactly PPP's", rows[CS].Packets, rows[PPP].Packets)
				case rows[CS].Packets < n*T+rows[PPP].Packets:
					t.Errorf("CS %d packets below PPP's %d plus the uplinks", rows[CS].Packets, rows[PPP].Packets)
				case rows[CSA].Packets > rows[CS].Packets:
					t.Errorf("CSA %d > CS %d", rows[CSA].Packets, rows[CS].Packets)
				case rows[FB].Missed != 0 || rows[FBP].Missed != 0:
					t.Errorf("FB missed %d, FBP %d", rows[FB].Missed, rows[FBP].Missed)
				case rows[GQ].Missed != 0:
					t.Errorf("GQ missed %d", rows[GQ].Missed)
				case rows[GQ].Packets < rows[PPP].Packets || rows[GQ].Queries < n ||
					rows[GQ].Packets != r.GQ.Uplinks+r.GQ.Downlinks+r.GQ.Updates+r.GQ.Announcements+r.GQ.Flips:
					t.Errorf("GQ %d packets, %d exits; PPP %d; %+v", rows[GQ].Packets, rows[GQ].Queries, rows[PPP].Packets, r.GQ)
				case rows[RP].Missed != 0 || rows[RP].Packets < rows[PPP].Packets || rows[RP].Queries < n ||
					rows[RP].Packets != r.RP.Uplinks+r.RP.Downlinks+r.RP.Updates+r.RP.Announcements+r.RP.Flips || r.RP.Walks > r.RP.Uplinks || r.RegionLevel != DefaultRegionLevel:
					t.Errorf("RP %+v: %+v at level %d", rows[RP], r.RP, r.RegionLevel)
				case rows[HY].Packets < rows[CSA].Packets+r.GQ.Updates || rows[HY].Packets > rows[CSA].Packets+rows[GQ].Packets ||
					rows[HY].Queries != r.GQ.Uplinks || rows[HY].Bytes <= rows[CSA].Bytes:
					// CSA's snapshots plus GQ's peer-to-peer traffic, its exit
					// reports and some answers riding on them.
					t.Errorf("HY %+v; CSA %d, GQ %d (%d updates)", rows[HY], rows[CSA].Packets, rows[GQ].Packets, r.GQ.Updates)
				case rows[VG].Missed != 0 || r.VG.Updates != r.GQ.Updates || r.VG.Announcements != r.GQ.Announcements || r.VG.Flips != r.GQ.Flips ||
					r.VG.Exits != r.GQ.Uplinks || r.VG.Flooded != r.VG.Exits*(n-1) || rows[VG].Queries != r.VG.Exits ||
					rows[VG].Packets != r.VG.Updates+r.VG.Announcements+r.VG.Flips+r.VG.Flooded+r.VG.KeepAlives+r.VG.Notifications ||
					r.VG.KeepAlives < T/10*n || r.VG.LinksMean < 1 || r.VG.LinksMean > float64(n-1) || r.VG.DepthMax < 1 || r.VG.DepthMax > int(n-1) ||
					r.VG.DepthMean < 1 || r.VG.DepthMean > float64(r.VG.DepthMax):
					// GQ's decisions without its coordinator: each exit
					// flooded to every other player, keep-alives at least
					// one per node and second.
					t.Errorf("VG %+v: %+v; GQ %+v", rows[VG], r.VG, r.GQ)
				case rows[FB].Packets < rows[PPP].Packets || rows[FB].Queries == 0:
					t.Errorf("FB %d packets, %d queries; PPP %d", rows[FB].Packets, rows[FB].Queries, rows[PPP].Packets)
				case radius > 0 && (rows[AOI].Packets != rows[NPP].Packets || rows[AOI].Missed != 0):
					t.Errorf("AOI over the whole terrain: %+v", rows[AOI])
				case radius > 0 && (rows[VON].Packets != rows[NPP].Packets || rows[VON].Missed != 0 || r.VON.Notifications != 0 || r.VON.Enclosing != 0):
					// Every node links every other from the start: no discovery.
					t.Errorf("VON over the whole terrain: %+v, %+v", rows[VON], r.VON)
				case r.VON.Seen != rows[PPP].Packets || r.VON.LinksMean < 1 || r.VON.LinksMax > int(n-1) ||
					rows[VON].Packets != r.VON.Updates+r.VON.Notifications ||
					r.VON.Recall != 1-float64(rows[VON].Missed)/float64(r.VON.Seen) || r.VON.Degenerate > 0:
					t.Errorf("VON %+v: %+v (PPP %d)", rows[VON], r.VON, rows[PPP].Packets)
				case radius == 0 && rows[VON].Missed > rows[AOI].Missed+2*r.VON.Notifications:
					// Beyond AOI's misses, VON misses a pair only on a link
					// discovered that tick, each way (it links more:
					// enclosing neighbours).
					t.Errorf("VON misses %d, AOI %d, notifications %d", rows[VON].Missed, rows[AOI].Missed, r.VON.Notifications)
				case radius == 0 && (rows[AOI].Missed == 0 || float64(rows[AOI].Missed) > 0.06*float64(rows[PPP].Packets)):
					// (the audit's own counter must see the radius's misses)
					t.Errorf("calibrated AOI misses %d of %d", rows[AOI].Missed, rows[PPP].Packets)
				case r.Respawns == 0 || r.ExactChecked == 0 || r.Snapshot == nil || len(r.Snapshot.Cells) != 6:
					t.Errorf("respawns %d, exact checks %d, snapshot %v", r.Respawns, r.ExactChecked, r.Snapshot != nil)
				case len(r.PerSecond) != len(Schemes) || len(r.PerSecond[0]) != 30:
					t.Errorf("per-second series %d×%d", len(r.PerSecond), len(r.PerSecond[0]))
				}
				t.Logf("radius %.1f m: PPP %d, CS %d, FB %d (%d queries, %d extensions), FBP %d, GQ %d %+v; VON %d, missed %d, %+v; exact LOS %d/%d",
					r.AOIRadiusM, rows[PPP].Packets, rows[CS].Packets, rows[FB].Packets,
					rows[FB].Queries, r.Extensions, rows[FBP].Packets, rows[GQ].Packets, r.GQ,
					rows[VON].Packets, rows[VON].Missed, r.VON, r.ExactMissed, r.ExactChecked)
			}
		})
	}
}

// TestRunSchemes: Config.Schemes counts only the schemes asked for, in
// Schemes' order with their per-second series, GQ still audited;
// an unknown scheme is ErrScheme.
func TestRunSchemes(t *testing.T) {
	s, gr := bakeWindow(t, "../../data/demo-hills.tif", heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}, compress.Cap{Codes: 1 << 30})
	bo := bots.Defaults(s.DxM, s.DyM)
	bo.Bots, bo.Ticks = 6, 100
	r, err := Run(s, gr, Config{Bots: bo, Predict: 3, SnapshotTick: 50, Schemes: []Scheme{GQ, CS}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 2 || r.Rows[0].Scheme != CS || r.Rows[1].Scheme != GQ || len(r.PerSecond) != 2 ||
		r.Rows[1].Packets == 0 || r.Rows[1].Missed != 0 || r.Snapshot != nil || r.ExactChecked != 0 {
		t.Errorf("rows %+v, %d series, snapshot %v, exact checks %d", r.Rows, len(r.PerSecond), r.Snapshot != nil, r.ExactChecked)
	}
	all, err := Run(s, gr, Config{Bots: bo, Predict: 3, SnapshotTick: -1})
	if err != nil {
		t.Fatal(err)
	}
	alone := map[Scheme]int64{CS: r.Rows[0].Packets, GQ: r.Rows[1].Packets}
	for _, row := range all.Rows {
		if want, ok := alone[row.Scheme]; ok && row.Packets != want {
			t.Errorf("%s: %d packets alone, %d among all", row.Scheme, want, row.Packets)
		}
	}
	if _, err := Run(s, gr, Config{Bots: bo, Predict: 3, Schemes: []Scheme{"XX"}}); !errors.Is(err, ErrScheme) {
		t.Errorf("unknown scheme: %v", err)
	}
}

// TestBytes: the byte columns follow the wire model — every packet of the
// unaggregated schemes is a header and an update; NPP's rate per client is
// exact; CSA's aggregation never costs more than CS; the joint frontier's
// bytes cover its updates and reports; the columns reach summary.csv.
func TestBytes(t *testing.T) {
	s, gr := bakeWindow(t, "../../data/demo-hills.tif", heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}, compress.Cap{Codes: 1 << 30})
	bo := bots.Defaults(s.DxM, s.DyM)
	bo.Bots, bo.Ticks = 6, 100 // 10 s at 10 Hz
	r, err := Run(s, gr, Config{Bots: bo, Predict: 3, SnapshotTick: -1})
	if err != nil {
		t.Fatal(err)
	}
	w := interest.DefaultWire()
	pkt := int64(w.HeaderB + w.UpdateB)
	rows := map[Scheme]Row{}
	for _, row := range r.Rows {
		rows[row.Scheme] = row
		if row.Hz != 10 || row.Bytes <= 0 {
			t.Errorf("%s: %g Hz, %d bytes", row.Scheme, row.Hz, row.Bytes)
		}
	}
	for _, sc := range []Scheme{NPP, PPP, CS, AOI, FB, FBP} {
		if got := rows[sc].Bytes; got != rows[sc].Packets*pkt {
			t.Errorf("%s: %d bytes for %d packets of %d B", sc, got, rows[sc].Packets, pkt)
		}
	}
	// NPP: 5 packets of 48 B a tick, 10 ticks a second: 19.2 kbit/s.
	if np := rows[NPP]; math.Abs(np.KbpsUpMean-19.2) > 1e-9 || math.Abs(np.KbpsUpP95-19.2) > 1e-9 || math.Abs(np.KbpsDownMax-19.2) > 1e-9 {
		t.Errorf("NPP: %g/%g/%g kbit/s", np.KbpsUpMean, np.KbpsUpP95, np.KbpsDownMax)
	}
	if cs, csa := rows[CS], rows[CSA]; csa.Bytes > cs.Bytes || cs.ServerMbps <= 0 || csa.ServerMbps > cs.ServerMbps {
		t.Errorf("CS %d bytes %g Mbit/s, CSA %d bytes %g Mbit/s", cs.Bytes, cs.ServerMbps, csa.Bytes, csa.ServerMbps)
	}
	gq := rows[GQ]
	if gq.Bytes < r.GQ.Updates*pkt+r.GQ.Uplinks*int64(w.HeaderB+w.CellB) || gq.ServerMbps <= 0 {
		t.Errorf("GQ: %d bytes for %d updates and %d reports; server %g Mbit/s", gq.Bytes, r.GQ.Updates, r.GQ.Uplinks, gq.ServerMbps)
	}
	rec := gq.Record("demo", 6)
	if len(rec) != len(Header) || Header[len(Header)-1] != "late" || rec[len(rec)-1] != "0" {
		t.Errorf("summary row %v for header %v", rec, Header)
	}
}

// TestDelay: without delay a scheme's late pair-ticks are its misses (0 for
// the frontier schemes); with delay the joint frontier misses updates
// unless exits come early, from the ring (JointRing < 0: sized from the
// delay), which keeps every pair its sides kept silent hidden until the
// coordinator's answer arrives.
func TestDelay(t *testing.T) {
	s, gr := bakeWindow(t, "../../data/demo-hills.tif", heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}, compress.Cap{Codes: 1 << 30})
	bo := bots.Defaults(s.DxM, s.DyM)
	bo.Bots, bo.Ticks = 12, 200
	bo.SpeedMS = 15 // 1.5 cells a tick: delays matter
	late := func(delayMS float64, ring int) map[Scheme]Row {
		r, err := Run(s, gr, Config{Bots: bo, Predict: 3, SnapshotTick: -1, DelayMS: delayMS, JointRing: ring,
			Schemes: []Scheme{CS, FB, GQ}})
		if err != nil {
			t.Fatal(err)
		}
		rows := map[Scheme]Row{}
		for _, row := range r.Rows {
			rows[row.Scheme] = row
		}
		return rows
	}
	for sc, row := range late(0, 0) {
		if row.Late != row.Missed || row.DelayMS != 0 {
			t.Errorf("%s without delay: %d late, %d missed", sc, row.Late, row.Missed)
		}
	}
	plain, ringed := late(300, 0), late(300, -1)
	if plain[GQ].DelayMS != 300 || plain[GQ].Late == 0 || plain[CS].Late == 0 {
		t.Errorf("300 ms without a ring: GQ %d late, CS %d late", plain[GQ].Late, plain[CS].Late)
	}
	if ringed[GQ].LateSilent != 0 || plain[GQ].LateSilent == 0 {
		t.Errorf("late behind silent pairs: %d with the ring, %d without", ringed[GQ].LateSilent, plain[GQ].LateSilent)
	}
	t.Logf("300 ms one-way at 10 Hz, 12 bots at 15 m/s: late pair-ticks CS %d, FB %d (%d silent), GQ %d (%d silent), GQ with ring %d (%d silent)",
		plain[CS].Late, plain[FB].Late, plain[FB].LateSilent, plain[GQ].Late, plain[GQ].LateSilent,
		ringed[GQ].Late, ringed[GQ].LateSilent)
}

// TestRunStoreCut: a simulation over a store whose file is cut while open
// ends with an error wrapping fault.ErrFault (from Run or the grower), not
// the process's end; over one rewritten in place with other bytes (its own
// shifted, as `cp other.pvs s.pvs` does) it ends, with a result or an
// error, without a panic.
func TestRunStoreCut(t *testing.T) {
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 40, Row: 150, Width: 48, Height: 40}})
	if err != nil {
		t.Fatal(err)
	}
	p := horizon.ThesisParams()
	p.Sectors = 256
	path := filepath.Join(t.TempDir(), "s.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: path, Cap: compress.Cap{Codes: 1 << 30}, Budget: 1 << 30}}}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []bool{true, false} {
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := bake.OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		gr, err := grow.New(s.Hierarchy, s.Elev, s.Nodata)
		if err != nil {
			t.Fatal(err)
		}
		if cut {
			err = os.Truncate(path, 4096)
		} else {
			err = os.WriteFile(path, append(make([]byte, 24), good[:len(good)-24]...), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		bo := bots.Defaults(s.DxM, s.DyM)
		bo.Bots, bo.Ticks = 6, 60
		_, err = Run(s, gr, Config{Bots: bo, Predict: 3, SnapshotTick: -1})
		if err == nil {
			err = gr.Err()
		}
		if cut && !errors.Is(err, fault.ErrFault) {
			t.Errorf("a simulation over a cut store: %v, want an error wrapping fault.ErrFault", err)
		}
		if !cut {
			t.Logf("a simulation over a store rewritten in place: %v", err)
		}
		s.Close()
	}
}

// TestHeightmapPos: positions in PVS cells land on the heightmap, those
// past its last sample at its edge (a 4097² map in 8 m cells: PVS cell 512
// covers sample 4096 only).
func TestHeightmapPos(t *testing.T) {
	for _, c := range []struct {
		v, k float64
		n    int
		want float64
	}{
		{0, 8, 4097, 3.5}, {-0.4375, 8, 4097, 0}, {-0.49, 8, 4097, 0}, {511.5, 8, 4097, 4095.5},
		{511.6, 8, 4097, 4096}, {512.49, 8, 4097, 4096}, {10.25, 1, 100, 10.25}, {99.4, 1, 100, 99},
	} {
		if got := heightmapPos(c.v, c.k, c.n); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("heightmapPos(%g, %g, %d) = %g, want %g", c.v, c.k, c.n, got, c.want)
		}
	}
}
