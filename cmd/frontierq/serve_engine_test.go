package main

import (
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/frontiersets/frontiersets/internal/render"

	"github.com/frontiersets/frontiersets/heightmap"
)

// TestServeEngineStore: the viewer of a Unity store draws the terrain as
// Unity's top view shows it (+x right, +z up: row 0, at the lowest z, at
// the bottom; it was drawn top-down, mirrored), with a "+z" arrow in place
// of a north arrow (the store has no coordinate system), names the players
// by their world positions, and draws no frontier past the terrain's edge
// (a 200×168 window: its quads reach past the last row and column). A
// store with neither a CRS nor an engine frame shows no arrow.
func TestServeEngineStore(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes two stores and drives Chromium (make check)")
	}
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium installed (make test installs Debian's chromium)")
	}
	dir := t.TempDir()
	unity, plain := filepath.Join(dir, "u.pvs"), filepath.Join(dir, "p.pvs")
	for _, store := range []string{unity, plain} {
		unityStore(t, store, heightmap.Window{Col: 20, Row: 40, Width: 200, Height: 168}, store == unity, 1)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.WindowSize(900, 900))
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	for _, store := range []string{unity, plain} {
		v, err := newViewer(store)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(v.handler())
		defer srv.Close()
		// The relief under the page runs as the page draws it: row 0 of
		// the picture is the grid's last row on the Unity store.
		resp, err := http.Get(srv.URL + "/api/relief.png")
		if err != nil {
			t.Fatal(err)
		}
		pic, err := png.Decode(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		s := v.s
		relief := render.Relief(s.Elev, s.Nodata, s.Width, s.Height, s.DxM, s.DyM)
		last := s.Height - 1
		if store == plain {
			last = 0
		}
		for x := range s.Width {
			if r1, g1, b1, _ := pic.At(x, 0).RGBA(); [3]uint32{r1, g1, b1} != func() [3]uint32 { r, g, b, _ := relief.At(x, last).RGBA(); return [3]uint32{r, g, b} }() {
				t.Fatalf("%s: the relief picture's row 0, column %d, is not the grid's row %d", filepath.Base(store), x, last)
			}
		}
		ctx, cancel := chromedp.NewContext(actx)
		defer cancel()
		ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		eval := func(expr string) string {
			t.Helper()
			s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(`+expr+`)`))
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			return s
		}
		if _, err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.viewer && window.viewer.ready === true`)); err != nil {
			t.Fatalf("page did not load: %v", err)
		}
		if store == plain {
			if got := eval(`document.querySelector(".north") === null`); got != "true" {
				t.Errorf("a store without a CRS or engine frame shows an arrow: %s", eval(`document.querySelector(".north").textContent`))
			}
			continue
		}
		if got := eval(`[document.querySelector(".north").textContent, viewer.cellToClient(5, 0).y > viewer.cellToClient(5, viewer.info.height - 1).y]`); got != `["+z",true]` {
			t.Errorf("the arrow and row 0 below the last row (Unity's top view): %s", got)
		}
		a, b := hiddenPair(t, v)
		for _, c := range [][2]int{a, b} {
			var p struct {
				X float64 `json:"x"`
				Y float64 `json:"y"`
			}
			json.Unmarshal([]byte(eval(`viewer.cellToClient(`+cell(c)+`)`)), &p)
			if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(p.X, p.Y)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`viewer.b !== null && viewer.frontier !== null && viewer.pending === 0`)); err != nil {
			t.Fatalf("no frontier shown: %v (%s)", err, eval(`viewer.error`))
		}
		if got := eval(`[viewer.a, viewer.b]`); got != "[["+cell(a)+"],["+cell(b)+"]]" {
			t.Errorf("clicks placed %s, want %v and %v", got, a, b)
		}
		if status := eval(`document.getElementById("status").textContent`); !strings.Contains(status, "(x ") || !strings.Contains(status, ", z ") {
			t.Errorf("the status names cells, not world positions: %s", status)
		}
		if got := eval(`[frontierLayer.getLayers().length > 0, frontierLayer.getLayers().every((l) => terrainBounds().contains(l.getBounds()))]`); got != "[true,true]" {
			t.Errorf("frontier drawn, and within the terrain: %s (quads %s)", got, eval(`[viewer.frontier.a.quads, viewer.frontier.b.quads]`))
		}
	}
}
