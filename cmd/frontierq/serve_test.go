package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// demoStore bakes a 64² window of the real-terrain demo crop (NASADEM
// around Mount Washington) into the test's temporary folder.
func demoStore(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mw.pvs")
	dem, err := heightmap.Load("../../data/mount-washington.tif", heightmap.Options{Window: heightmap.Window{Col: 100, Row: 96, Width: 64, Height: 64}})
	if err != nil {
		t.Fatal(err)
	}
	params := horizon.ThesisParams()
	params.Sectors = 128
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: params, Outputs: []bake.Output{{Path: p, Cap: compress.Cap{Nodes: 60}}}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// startViewer serves the viewer of a fresh demo store until the test ends,
// or of the store $FRONTIERQ_STORE names (the README's picture: make
// viewer-picture).
func startViewer(t *testing.T) (store string, v *viewer, srv *httptest.Server) {
	t.Helper()
	store = os.Getenv("FRONTIERQ_STORE")
	if store == "" {
		store = demoStore(t)
	}
	v, err := newViewer(store)
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewServer(v.handler())
	t.Cleanup(srv.Close)
	return store, v, srv
}

// hiddenPair returns two cells of the store, far apart, that do not see
// each other.
func hiddenPair(t *testing.T, v *viewer) (a, b [2]int) {
	w, h := v.s.Width, v.s.Height
	if p := os.Getenv("FRONTIERQ_PAIR"); p != "" { // col,row,col,row
		fmt.Sscanf(p, "%d,%d,%d,%d", &a[0], &a[1], &b[0], &b[1])
		return a, b
	}
	for i := 0; i < 64*64; i++ {
		a, b = [2]int{i % 23, 10 + i%41}, [2]int{w - 1 - i%19, h - 1 - i%37}
		if vis, err := v.gr.MutuallyVisible(a, b); err == nil && !vis {
			return a, b
		}
	}
	t.Fatal("no hidden pair")
	return
}

// cliJSON is frontierq --json for the cells and options.
func cliJSON(t *testing.T, store string, a, b [2]int, opts ...string) resultJSON {
	t.Helper()
	args := append([]string{store, "--a", cell(a), "--b", cell(b), "--json"}, opts...)
	out, errOut, code := runCmd(args...)
	if code != 0 {
		t.Fatalf("frontierq %v: exit %d: %s", args, code, errOut)
	}
	var r resultJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// cell formats a cell as "col,row".
func cell(c [2]int) string { return strings.Trim(jsonOf(c), "[]") }

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// decode parses a resultJSON.
func decode(t *testing.T, s string) resultJSON {
	t.Helper()
	var r resultJSON
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// sameFrontier compares everything but the time.
func sameFrontier(x, y resultJSON) bool {
	x.ElapsedMS, y.ElapsedMS = 0, 0
	return jsonOf(x) == jsonOf(y)
}

// TestServeAPI: the API answers exactly frontierq --json's object for the
// same cells and options, bad cells get a 400 with the command line's
// one-line message, and the server serves only its own files.
func TestServeAPI(t *testing.T) {
	store, v, srv := startViewer(t)
	get := func(path string) (int, string, []byte) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b
	}
	a, b := hiddenPair(t, v)
	for _, opts := range [][]string{nil, {"--merge", "lossy"}, {"--method", "simple", "--neighbours", "8"}, {"--queue", "ground", "--grow-larger"}, {"--max-steps", "2"}} {
		q := "/api/frontier?a=" + cell(a) + "&b=" + cell(b)
		for i := 0; i < len(opts); i++ {
			name := strings.TrimPrefix(opts[i], "--")
			val := "true"
			if name != "grow-larger" {
				i++
				val = opts[i]
			}
			q += "&" + name + "=" + val
		}
		code, ct, body := get(q)
		var got resultJSON
		if code != 200 || ct != "application/json" || json.Unmarshal(body, &got) != nil {
			t.Fatalf("%s: %d %s %s", q, code, ct, body)
		}
		if want := cliJSON(t, store, a, b, opts...); !sameFrontier(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", q, jsonOf(got), jsonOf(want))
		}
	}
	_, cliErr, _ := runCmd(store, "--a", "99,3", "--b", cell(b))
	for path, want := range map[string]int{
		"/api/frontier?a=99,3&b=" + cell(b):  400,
		"/api/frontier?a=1,1":                400,
		"/api/cell?at=64,1":                  400,
		"/api/nothing":                       404,
		"/api/frontier?a=1,2&b=3,4&merge=no": 400,
		"/api/frontier?a=x&b=3,4":            400,
		"/api/pvs.png?at=64,0":               400,
		"/../../etc/passwd":                  404,
		"/serve.go":                          404,
		"/api/frontier?a=1,2&b=3,4&x=" + strings.Repeat("y", 3000): 413,
	} {
		code, _, body := get(path)
		if code != want {
			t.Errorf("%s: %d (want %d): %s", path[:min(len(path), 60)], code, want, body)
		}
		var e struct{ Error string }
		if strings.HasPrefix(path, "/api/") && (json.Unmarshal(body, &e) != nil || e.Error == "") {
			t.Errorf("%s: the error is not JSON: %s", path, body)
		}
		// The command line's message in query terms: a=99,3, not --a 99,3.
		if strings.HasPrefix(path, "/api/frontier?a=99") && e.Error != strings.Replace(strings.TrimPrefix(strings.TrimSpace(cliErr), "frontierq: "), "--a 99,3", "a=99,3", 1) {
			t.Errorf("400 says %q, the command line %q", e.Error, cliErr)
		}
		if path == "/api/frontier?a=1,1" && e.Error != "give exactly one of b, b-xy, b-lonlat or b-world" {
			t.Errorf("%s says %q", path, e.Error)
		}
		if code == 400 && strings.Contains(e.Error, "--") {
			t.Errorf("%s: the error names a flag: %s", path, e.Error)
		}
	}
	for _, q := range []string{"/api/pvs.png?at=" + cell(a), "/api/pvs.png?at=" + cell(a) + "&exact=1", "/api/hillshade.png", "/api/relief.png"} {
		code, ct, body := get(q)
		img, err := png.Decode(strings.NewReader(string(body)))
		if code != 200 || ct != "image/png" || err != nil {
			t.Fatalf("%s: %d %s %v", q, code, ct, err)
		}
		if img.Bounds().Dx() != 64 || img.Bounds().Dy() != 64 {
			t.Errorf("%s: %v", q, img.Bounds())
		}
	}
	if code, _, body := get("/"); code != 200 || !strings.Contains(string(body), "app.js") {
		t.Errorf("page: %d", code)
	}
	for _, asset := range []string{"/leaflet/leaflet.js", "/leaflet/leaflet.css", "/favicon.svg"} {
		if code, _, _ := get(asset); code != 200 {
			t.Errorf("%s: %d", asset, code)
		}
	}
	// The readout's cell: frontierq --json's location of the same cell.
	code, _, body := get("/api/cell?at=" + cell(a))
	var loc, want cli.Location
	if json.Unmarshal(body, &loc) != nil || code != 200 {
		t.Fatalf("/api/cell: %d %s", code, body)
	}
	if want = cliJSON(t, store, a, b).A.Location; jsonOf(loc) != jsonOf(want) {
		t.Errorf("/api/cell says %s, frontierq --json %s", jsonOf(loc), jsonOf(want))
	}
	// A played-back simulation: every tick's cells, pairs and packets; bot
	// 0's frontiers name other bots; the bounds are 400s.
	code, _, body = get("/api/sim?bots=6&seconds=3&seed=2")
	var pb playbackJSON
	if code != 200 || json.Unmarshal(body, &pb) != nil {
		t.Fatalf("sim: %d %s", code, body[:min(len(body), 200)])
	}
	if pb.Bots != 6 || pb.Ticks != 30 || len(pb.Cells) != 30 || len(pb.Cells[29]) != 12 || len(pb.Packets) != 30 || pb.NPP != 30 {
		t.Errorf("sim: %d bots, %d ticks, %d cell lists, %d packet counts", pb.Bots, pb.Ticks, len(pb.Cells), len(pb.Packets))
	}
	for _, f := range pb.Frontiers {
		if f.J < 1 || f.J >= 6 || f.Tick < 0 || f.Tick >= 30 || len(f.A) == 0 || len(f.B) == 0 {
			t.Errorf("frontier record %+v", f)
		}
	}
	for k, n := range pb.Packets {
		if want := len(pb.Visible[k]) + len(pb.Negotiated[k]); n > want || n < want/2 {
			t.Errorf("tick %d: %d packets for %d visible and %d renegotiating pairs", k, n, len(pb.Visible[k])/2, len(pb.Negotiated[k])/2)
		}
	}
	// The joint frontier on the same trajectories: every bot's side from
	// tick 0, each holding its bot's cell while it lasts; packets at least
	// the sending pairs'.
	side := map[int32][5]int32{}
	next := 0
	for k := range pb.Ticks {
		for ; next < len(pb.GQSides) && pb.GQSides[next][0] == int32(k); next++ {
			side[pb.GQSides[next][1]] = pb.GQSides[next]
		}
		for b := range int32(6) {
			q, ok := side[b]
			c, r := pb.Cells[k][2*b], pb.Cells[k][2*b+1]
			if !ok || c < q[2] || r < q[3] || c >= q[2]+q[4] || r >= q[3]+q[4] {
				t.Fatalf("tick %d: bot %d at (%d,%d) outside its side %v", k, b, c, r, q)
			}
		}
		if len(pb.GQSends) != pb.Ticks || len(pb.GQPackets) != pb.Ticks || pb.GQPackets[k] < len(pb.GQSends[k])/2 {
			t.Fatalf("tick %d: %d GQ packets for %d sending pairs", k, pb.GQPackets[k], len(pb.GQSends[k])/2)
		}
	}
	if next != len(pb.GQSides) {
		t.Errorf("side records out of tick order: %d of %d read", next, len(pb.GQSides))
	}
	// DNS rebinding: a page of another site whose name resolves to
	// 127.0.0.1 sends its own Host; the viewer does not answer it.
	req, _ := http.NewRequest("GET", srv.URL+"/api/info", nil)
	req.Host = "attacker.example:8080"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a foreign Host: %v %v", resp.Status, err)
	} else {
		resp.Body.Close()
	}
	for _, q := range []string{"/api/sim?bots=100", "/api/sim?seconds=0", "/api/sim?seed=x"} {
		if code, _, _ := get(q); code != 400 {
			t.Errorf("%s: %d", q, code)
		}
	}
}

// chromium returns the path of a Chromium or Chrome binary, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestServeExports: /api/frontier.geojson and /api/frontier.png answer, as
// downloads, what frontierq --geojson and --png write for the same players
// and options; a bad request stays a JSON error, not a download.
func TestServeExports(t *testing.T) {
	store, v, srv := startViewer(t)
	a, b := hiddenPair(t, v)
	dir := t.TempDir()
	geo, pic := filepath.Join(dir, "frontier.geojson"), filepath.Join(dir, "frontier.png")
	if _, e, code := runCmd(store, "--a", cell(a), "--b", cell(b), "--merge", "lossy", "--geojson", geo, "--png", pic); code != 0 {
		t.Fatal(e)
	}
	fetch := func(path string) (*http.Response, []byte) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	q := "?a=" + cell(a) + "&b=" + cell(b) + "&merge=lossy"
	type features struct {
		Features []struct {
			Properties map[string]any
			Geometry   json.RawMessage
		}
	}
	var got, want features
	resp, body := fetch("/api/frontier.geojson" + q)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/geo+json" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename=frontier.geojson` || json.Unmarshal(body, &got) != nil {
		t.Fatalf("GeoJSON: %s %q %q: %.200s", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), body)
	}
	wb, _ := os.ReadFile(geo)
	if err := json.Unmarshal(wb, &want); err != nil || len(want.Features) == 0 || jsonOf(got) != jsonOf(want) {
		t.Errorf("the export's features differ from frontierq --geojson's (%d against %d features)", len(got.Features), len(want.Features))
	}
	resp, body = fetch("/api/frontier.png" + q)
	img, err := png.Decode(bytes.NewReader(body))
	if resp.StatusCode != 200 || err != nil || resp.Header.Get("Content-Disposition") != `attachment; filename=frontier.png` {
		t.Fatalf("PNG: %s %v %q", resp.Status, err, resp.Header.Get("Content-Disposition"))
	}
	wb, _ = os.ReadFile(pic)
	if !bytes.Equal(body, wb) {
		t.Errorf("the exported %v picture differs from frontierq --png's", img.Bounds())
	}
	resp, body = fetch("/api/frontier.png?a=99,3&b=" + cell(b))
	if resp.StatusCode != 400 || resp.Header.Get("Content-Disposition") != "" || !strings.Contains(string(body), `"error"`) {
		t.Errorf("a bad export: %s %q %s", resp.Status, resp.Header.Get("Content-Disposition"), body)
	}
}

// TestServeInBrowser drives the page in headless Chromium: it clicks two
// cells of the real-terrain store, waits for the overlay, and checks that
// the frontier the page shows is frontierq --json's for those cells. The
// screenshot goes to $FRONTIERQ_SCREENSHOT, or to the temporary folder.
func TestServeInBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium installed (make test installs Debian's chromium)")
	}
	store, v, srv := startViewer(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(900, 900))
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	a, b := hiddenPair(t, v)
	run := func(what string, act chromedp.Action[chromedp.Void]) {
		t.Helper()
		if _, err := chromedp.Run(ctx, act); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(`+expr+`)`))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return s
	}
	run("open the page", chromedp.Navigate(srv.URL+"/"))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.viewer && window.viewer.ready === true`)); err != nil {
		t.Fatalf("page did not load: %v", err)
	}
	// At first sight: one toolbar row, the map filling the rest of the
	// window, the terrain in colour (a hypsometric tint, not grey), a
	// north arrow.
	if got := eval(`[document.getElementById("toolbar").getBoundingClientRect().height < 40 && document.documentElement.scrollWidth <= window.innerWidth, document.getElementById("simbar").hidden,
			document.getElementById("map").getBoundingClientRect().height > 0.9 * (window.innerHeight - document.getElementById("toolbar").getBoundingClientRect().height),
			/N$/.test(document.querySelector(".north").textContent), document.querySelector(".legend").textContent.includes("terrain ")]`); got != "[true,true,true,true,true]" {
		t.Errorf("toolbar one row, simulation folded, map filling the window, north arrow, terrain legend: %s", got)
	}
	{
		var mid struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
		}
		json.Unmarshal([]byte(eval(`viewer.cellToClient(Math.floor(viewer.info.width / 2), Math.floor(viewer.info.height / 2))`)), &mid)
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		r, g, b, _ := img.At(int(mid.X), int(mid.Y)).RGBA()
		if lo, hi := min(r, g, b)>>8, max(r, g, b)>>8; hi-lo < 12 {
			t.Errorf("the terrain's middle is grey (%d,%d,%d): no hypsometric tint", r>>8, g>>8, b>>8)
		}
	}
	for _, c := range [][2]int{a, b} { // the first click places A, the second B
		var p struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
		}
		json.Unmarshal([]byte(eval(`viewer.cellToClient(`+cell(c)+`)`)), &p)
		run("click", chromedp.MouseClickXY(p.X, p.Y))
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`viewer.b !== null && viewer.frontier !== null && viewer.pending === 0`)); err != nil {
		t.Fatalf("no frontier shown: %v (players %s, error %s)", err, eval(`[viewer.a, viewer.b, viewer.frontier === null, viewer.pending]`), eval(`viewer.error`))
	}
	shown := eval(`viewer.frontier`)
	placed := eval(`[viewer.a, viewer.b]`)
	// The screen's pixel at the centre of each side's first quad.
	var centres []struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	json.Unmarshal([]byte(eval(`[viewer.frontier.a, viewer.frontier.b].map((f) => {
			const [c, w, s] = f.quads[0];
			return viewer.cellToClient(c + s / 2 - 0.5, w + s / 2 - 0.5);
		})`)), &centres)
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	var overlay []int
	for _, p := range centres {
		r, g, b, _ := img.At(int(p.X), int(p.Y)).RGBA()
		overlay = append(overlay, int(r>>8), int(g>>8), int(b>>8))
	}
	if want := jsonOf([][2]int{a, b}); placed != want {
		t.Fatalf("clicks placed %s, want %s", placed, want)
	}
	var got resultJSON
	if err := json.Unmarshal([]byte(shown), &got); err != nil {
		t.Fatal(err)
	}
	if want := cliJSON(t, store, a, b); !sameFrontier(got, want) {
		t.Errorf("the page shows\n%s\nfrontierq --json says\n%s", shown, jsonOf(want))
	}
	// A's overlay is blue-tinted, B's red-tinted.
	if len(overlay) != 6 || !(overlay[2] > overlay[0]) || !(overlay[3] > overlay[5]) {
		t.Errorf("overlay pixels %v: want A bluish, B reddish", overlay)
	}
	// The state is in the URL; the export links ask for the frontier shown.
	if got, want := eval(`[new URLSearchParams(location.hash.slice(1)).get("a"), new URLSearchParams(location.hash.slice(1)).get("b")]`), jsonOf([]string{cell(a), cell(b)}); got != want {
		t.Errorf("the URL holds players %s, want %s", got, want)
	}
	run("fetch the exports", chromedp.Evaluate[chromedp.Void](`(async () => {
			const g = await (await fetch(document.getElementById("export-geojson").href)).json();
			const p = await fetch(document.getElementById("export-png").href);
			viewer.exported = [g.features.length > 0, p.headers.get("Content-Type")];
		})()`))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`viewer.exported !== undefined`)); err != nil {
		t.Fatalf("exports: %v", err)
	}
	if got := eval(`viewer.exported`); got != `[true,"image/png"]` {
		t.Errorf("exports from the page: %s", got)
	}
	// Map furniture: zoom buttons, a scale bar in metres, the legend of
	// what is shown, and the readout of the hovered cell, which matches
	// frontierq --json's location of A.
	if got := eval(`[!!document.querySelector(".leaflet-control-zoom-in"), /^[0-9]+ k?m$/.test(document.querySelector(".leaflet-control-scale-line").textContent),
			document.querySelector(".legend").textContent.includes("A and its frontier")]`); got != "[true,true,true]" {
		t.Errorf("zoom buttons, scale bar, legend: %s", got)
	}
	pa := struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}{}
	json.Unmarshal([]byte(eval(`viewer.cellToClient(`+cell(a)+`)`)), &pa)
	run("hover A", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pa.X+3, pa.Y+3))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`viewer.readout !== null && viewer.readout.col === `+strconv.Itoa(a[0])+` && viewer.readout.row === `+strconv.Itoa(a[1]))); err != nil {
		t.Fatalf("no readout for A's cell: %v (%s)", err, eval(`viewer.readout`))
	}
	if got, want := eval(`viewer.readout`), jsonOf(cliJSON(t, store, a, b).A.Location); got != want {
		t.Errorf("readout %s, frontierq --json %s", got, want)
	}
	if got := eval(`document.querySelector(".readout").textContent`); !strings.Contains(got, "lon ") || !strings.Contains(got, " m") {
		t.Errorf("readout text %q", got)
	}
	// The picture: the frontier set, the readout, the furniture.
	shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("FRONTIERQ_SCREENSHOT")
	if out == "" {
		out = filepath.Join(os.TempDir(), "frontierq-serve-test.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
	// Drag B to another cell hidden from A: the frontier follows.
	c := b
	for k := 1; k < 40; k++ {
		c = [2]int{b[0] - k%5, b[1] - k}
		if vis, err := v.gr.MutuallyVisible(a, c); err == nil && !vis {
			break
		}
	}
	var from, to struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	json.Unmarshal([]byte(eval(`viewer.cellToClient(`+cell(b)+`)`)), &from)
	json.Unmarshal([]byte(eval(`viewer.cellToClient(`+cell(c)+`)`)), &to)
	run("press on B", chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, from.X, from.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	run("drag B", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (from.X+to.X)/2, (from.Y+to.Y)/2, chromedp.ButtonLeft))
	run("drag B", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, to.X, to.Y, chromedp.ButtonLeft))
	run("release B", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, to.X, to.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`viewer.b[0] === `+strconv.Itoa(c[0])+` && viewer.b[1] === `+strconv.Itoa(c[1])+
		` && viewer.frontier !== null && viewer.frontier.b.col === viewer.b[0] && viewer.frontier.b.row === viewer.b[1] && viewer.pending === 0`)); err != nil {
		t.Fatalf("dragging B to %v: %v (B at %s)", c, err, eval(`viewer.b`))
	}
	if got, want := eval(`viewer.frontier`), cliJSON(t, store, a, c); !sameFrontier(decode(t, got), want) {
		t.Errorf("after the drag the page shows\n%s\nfrontierq --json says\n%s", got, jsonOf(want))
	}
	// Play back a short simulation: the page loads it and steps to a tick.
	run("run a simulation", chromedp.Evaluate[chromedp.Void](`document.getElementById("simtoggle").click(); document.getElementById("simsecs").value = "5"; document.getElementById("simrun").click()`))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`viewer.sim.data !== null && viewer.pending === 0`)); err != nil {
		t.Fatalf("no simulation loaded: %v", err)
	}
	run("step", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("simtick"); s.value = 25; s.dispatchEvent(new Event("input")); })()`))
	if got := eval(`[viewer.sim.data.ticks, viewer.sim.tick, document.getElementById("simstatus").textContent.startsWith("tick 25 (2.5 s)")]`); got != "[50,25,true]" {
		t.Errorf("playback state %s", got)
	}
	// The joint frontier on the same run: every bot's side drawn (a
	// rectangle each) and the status naming the scheme.
	run("joint frontier", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("simscheme"); s.value = "GQ"; s.dispatchEvent(new Event("change")); })()`))
	if got := eval(`(() => { let rects = 0; simLayer.eachLayer((l) => { if (l instanceof L.Rectangle) rects++; }); const st = document.getElementById("simstatus").textContent; return [rects >= viewer.sim.data.bots, st.startsWith("tick 25 (2.5 s), joint frontier: " + viewer.sim.data.gq_packets[25] + " packets"), document.getElementById("simpartner").disabled]; })()`); got != "[true,true,true]" {
		t.Errorf("joint frontier playback: %s (%s)", got, eval(`document.getElementById("simstatus").textContent`))
	}
	// A permalink opens the same players, options and view: the page
	// shows frontierq --json's lossy frontier set at once.
	run("open a permalink", chromedp.Navigate(srv.URL+"/#a="+cell(a)+"&b="+cell(b)+"&merge=lossy&view=1,"+cell(a)))
	run("reload", chromedp.Reload())
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.viewer && viewer.ready && viewer.frontier !== null && viewer.pending === 0`)); err != nil {
		t.Fatalf("the permalink shows no frontier: %v", err)
	}
	if got, want := eval(`viewer.frontier`), cliJSON(t, store, a, b, "--merge", "lossy"); !sameFrontier(decode(t, got), want) {
		t.Errorf("the permalink shows\n%s\nfrontierq --json --merge lossy says\n%s", got, jsonOf(want))
	}
	if got := eval(`[document.getElementById("merge").value, map.getZoom(), viewer.a]`); got != `["lossy",1,`+jsonOf(a)+`]` {
		t.Errorf("the permalink's options, zoom and A: %s", got)
	}
}

// TestPlaybackStopsAtTimeout: a simulation whose request has timed out stops
// at its next tick and frees its slot.
func TestPlaybackStopsAtTimeout(t *testing.T) {
	_, v, _ := startViewer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req := httptest.NewRequest("GET", "/api/sim?bots=32&seconds=120", nil).WithContext(ctx)
	start := time.Now()
	if _, _, err := v.playback(req); err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("a cancelled simulation ran %s: %v", time.Since(start), err)
	}
}

// TestSlotFreedAtDeadline: work that runs past its deadline answers 503
// and frees its slot then, so that the next request is served at once
// though the slow work goes on (round-3 audit: 80 s of 503s).
func TestSlotFreedAtDeadline(t *testing.T) {
	v := &viewer{slots: make(chan struct{}, 1)}
	release := make(chan struct{})
	defer close(release)
	slow := v.limited(100*time.Millisecond, func(*http.Request) (string, []byte, error) {
		<-release // ignores its context: a query that never checks it
		return "text/plain", nil, nil
	})
	fast := v.limited(time.Second, func(*http.Request) (string, []byte, error) { return "text/plain", []byte("ok"), nil })
	rec := httptest.NewRecorder()
	slow(rec, httptest.NewRequest("GET", "/api/frontier", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("slow work: %d, want 503", rec.Code)
	}
	start := time.Now()
	rec = httptest.NewRecorder()
	fast(rec, httptest.NewRequest("GET", "/api/cell", nil))
	if rec.Code != http.StatusOK || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("the next request: %d after %s, want 200 at once", rec.Code, time.Since(start))
	}
}

// serveViewer runs serve (its connection limits included, which the test
// server of startViewer lacks) on a fresh demo store until the test ends,
// and returns its address.
func serveViewer(t *testing.T) string {
	t.Helper()
	_, v, _ := startViewer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go v.serve(ctx, ln)
	return ln.Addr().String()
}

// TestIdleConnectionsLockNobodyOut: clients holding more keep-alive
// connections than the server keeps open, idle, do not make a new client
// wait: the oldest idle ones are closed.
func TestIdleConnectionsLockNobodyOut(t *testing.T) {
	addr := serveViewer(t)
	url := "http://" + addr + "/api/info"
	var idle []*http.Client
	for range serveMaxConns + 40 {
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close() // the connection stays open, idle
		idle = append(idle, c)
	}
	start := time.Now()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("a new client after %d idle connections: %v", len(idle), err)
	}
	resp.Body.Close()
	if el := time.Since(start); el > time.Second {
		t.Errorf("a new client waited %s behind idle connections", el)
	}
}

// TestServeStoreCutUnderIt: the store's file cut to 4 KiB while served —
// the cell readout, a PVS picture, a simulation and a frontier then read
// past its end — gives 500 for each, and the server keeps answering
// ("fatal error: fault [SIGBUS]" before).
func TestServeStoreCutUnderIt(t *testing.T) {
	store, _, srv := startViewer(t)
	good, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/api/cell?at=60,60", "/api/pvs.png?at=60,60", "/api/sim?bots=4&seconds=2", "/api/frontier?a=2,2&b=60,60"}
	if err := os.Truncate(store, 4096); err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(b), "truncated or changed") {
			t.Errorf("%s on a cut store: %d %s", path, resp.StatusCode, b)
		}
	}
	// Rewritten in place with other bytes (its own shifted, as `cp
	// other.pvs s.pvs` does): an answer or an error, never the server's
	// end (a panic in a request's worker goroutine ended it).
	if err := os.WriteFile(store, append(make([]byte, 24), good[:len(good)-24]...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("%s on a store rewritten in place: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("%s on a store rewritten in place: %d", path, resp.StatusCode)
		}
	}
	if resp, err := http.Get(srv.URL + "/api/info"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the server after the faults: %v", err)
	}
}

// TestSimulationsLeaveQueriesSlots: simulations hold at most their share
// of the query slots (half, at least one), so with every simulation slot
// taken by a running simulation and more waiting, a frontier query is
// answered at once (64 clients looping /api/sim made every query wait 5 s
// for a 503).
func TestSimulationsLeaveQueriesSlots(t *testing.T) {
	_, v, srv := startViewer(t)
	release := make(chan struct{})
	running := make(chan struct{}, 64)
	sim := v.share(v.simSlots, v.limited(servePlaybackTimeout, func(*http.Request) (string, []byte, error) {
		running <- struct{}{}
		<-release
		return "text/plain", nil, nil
	}))
	var wg sync.WaitGroup
	for range 4 * cap(v.slots) {
		wg.Go(func() { sim(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/sim", nil)) })
	}
	for range cap(v.simSlots) {
		<-running
	}
	a, b := hiddenPair(t, v)
	start := time.Now()
	resp, err := http.Get(srv.URL + "/api/frontier?a=" + cell(a) + "&b=" + cell(b))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || time.Since(start) > 2*time.Second {
		t.Errorf("a frontier query beside %d simulations: %d after %s", 4*cap(v.slots), resp.StatusCode, time.Since(start))
	}
	close(release)
	wg.Wait()
}

// TestSlowHeadersShed: connections that trickle their request's header
// are shed, slowest first, once the server holds its most connections, so
// they cannot take every descriptor; a new client is answered at once.
func TestSlowHeadersShed(t *testing.T) {
	addr := serveViewer(t)
	extra := 40
	var slow []net.Conn
	for range connsAllowed() + extra {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")) // the header never ends
		slow = append(slow, c)
	}
	start := time.Now()
	resp, err := http.Get("http://" + addr + "/api/info")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a new client beside %d trickling ones: %v", len(slow), err)
	}
	resp.Body.Close()
	if d := time.Since(start); d > time.Second {
		t.Errorf("a new client answered after %s", d)
	}
	// The server accepts the connections as it gets to them, shedding one
	// for each past its limit: poll until enough are closed (on a loaded
	// machine it may take seconds), each read waiting a moment only.
	closed := 0
	open := slices.Clone(slow)
	for give := time.Now().Add(15 * time.Second); closed < extra && time.Now().Before(give); {
		still := open[:0]
		for _, c := range open {
			c.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
				closed++
			} else {
				still = append(still, c)
			}
		}
		open = still
	}
	if closed < extra {
		t.Errorf("%d of %d trickling connections closed, want at least %d", closed, len(slow), extra)
	}
}
