package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"math"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/internal/render"
	"github.com/frontiersets/frontiersets/quadpvs"
)

//go:embed web
var webFiles embed.FS

// Limits of the viewer's server: it answers a person at a browser, so every
// request is small and quick, and no request may hold it.
const (
	serveQueryTimeout    = 5 * time.Second  // a frontier query or a PVS picture
	servePlaybackTimeout = 60 * time.Second // a simulation to play back
	serveMaxHeader       = 16 << 10         // bytes of request headers
	serveMaxURL          = 2048             // bytes of a request's URL
	serveMaxConns        = 128              // connections kept open at once: beyond, idle ones are closed, oldest first
	serveIdleTimeout     = 15 * time.Second // a keep-alive connection's wait for its next request
)

// serveCmd is `frontierq serve`: the viewer of one store, the page
// (embedded, nothing fetched from elsewhere) and its API. It binds loopback
// unless --addr names another host and --public allows it; on loopback it
// answers only requests addressed to a loopback name (no DNS rebinding). It
// keeps at most serveMaxConns connections and stops on SIGINT or SIGTERM.
func serveCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "serve STORE", Short: "Serve the browser viewer of a store and its JSON API", Args: cli.Args("STORE")}
	c.Example = `  frontierq serve mw.pvs --addr 127.0.0.1:8080`
	fset := c.Flags()
	addr := fset.String("addr", "127.0.0.1:8080", "listen `address` host:port (a host other than loopback needs --public)")
	public := fset.Bool("public", false, "allow --addr to listen beyond loopback, exposing the store and the server's CPU to the network")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		host, _, err := net.SplitHostPort(*addr)
		if err != nil {
			return cli.Usagef("--addr %q: want host:port, e.g. 127.0.0.1:8080", *addr)
		}
		if !loopback(host) && !*public {
			where := host
			if where == "" {
				where = "every interface"
			}
			return cli.Usagef("--addr %s listens on %s, beyond this machine: add --public to mean it, or use 127.0.0.1", *addr, where)
		}
		v, err := newViewer(pos[0])
		if err != nil {
			return err
		}
		v.public = *public
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return fmt.Errorf("serve %s: %w", pos[0], err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		fmt.Fprintf(stdout, "serving %s at http://%s/ (Ctrl-C stops)\n", pos[0], ln.Addr())
		return v.serve(ctx, ln)
	}
	return c
}

// viewer holds one store and answers the page's requests; safe for
// concurrent use (the store, grower and model are read-only; scratch is
// per request).
type viewer struct {
	public  bool // --public: any Host header; else loopback names only
	path    string
	s       *compress.Store
	gr      *grow.Grower
	model   *horizon.Model
	workers sync.Pool // *horizon.Worker
	slots   chan struct{}
	// simSlots bounds the simulations running at once to half the query
	// slots (at least one), so that simulations, which take a few tenths
	// of a second each, never hold every slot: 64 clients looping them
	// made every frontier query wait 5 s and fail (503).
	simSlots chan struct{}
	shade    []byte // the hillshade PNG, one pixel per cell
	relief   []byte // the tinted shaded relief PNG, one pixel per cell
	// rowsUp: the page draws row 0 at the bottom, as the engine's top
	// view shows the terrain (Unity: +x right, +z up, rows along +z), and
	// the PNGs it overlays run bottom-up (rowsUpFor, flipRows).
	rowsUp bool

	elevMin, elevMax float64 // metres, over the cells that are not nodata
}

func newViewer(path string) (*viewer, error) {
	s, gr, err := bake.OpenGrower(path)
	if err != nil {
		return nil, err
	}
	m, err := bake.StoreModel(s)
	if err != nil && !errors.Is(err, bake.ErrNeedsHeightmap) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n := runtime.GOMAXPROCS(0)
	v := &viewer{path: path, s: s, gr: gr, model: m, slots: make(chan struct{}, n), simSlots: make(chan struct{}, max(1, n/2)), rowsUp: rowsUpFor(s.Engine)}
	if m != nil { // else recomputed PVSs are refused (viewer.pvs)
		v.workers.New = func() any { return m.NewWorker() }
	}
	v.elevMin, v.elevMax = math.Inf(1), math.Inf(-1)
	for i, e := range s.Elev {
		if s.Nodata == nil || !s.Nodata[i] {
			v.elevMin, v.elevMax = min(v.elevMin, float64(e)), max(v.elevMax, float64(e))
		}
	}
	if v.elevMin > v.elevMax {
		v.elevMin, v.elevMax = 0, 0
	}
	// One pixel per cell: the page stretches it to the cells' metric
	// bounds, so its size is bounded by the grid's.
	for _, p := range []struct {
		dst *[]byte
		img *image.RGBA
	}{{&v.shade, render.Hillshade(s.Elev, s.Width, s.Height, s.DxM, s.DyM)}, {&v.relief, render.Relief(s.Elev, s.Nodata, s.Width, s.Height, s.DxM, s.DyM)}} {
		if v.rowsUp {
			flipRows(p.img.Pix, p.img.Stride)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, p.img); err != nil {
			return nil, err
		}
		*p.dst = buf.Bytes()
	}
	return v, nil
}

// rowsUpFor reports whether an engine's top view shows a grid on frame f
// with its rows running up the screen: Unity's shows +x right and +z up,
// so a frame whose rows step along +z (a RAW exported without Flip
// Vertically) is drawn bottom-up. A store without a frame, or Unreal's
// (its top view's +Y runs down the screen, as the rows), is drawn top-down.
func rowsUpFor(f *heightmap.EngineFrame) bool {
	return f != nil && f.Engine == "unity" && f.Step[1] > 0
}

// flipRows turns a picture's pixel buffer (rows of stride bytes, one pixel
// per cell, row 0 at the top) upside down in place, as the page overlays
// it where viewer.rowsUp.
func flipRows(pix []byte, stride int) {
	tmp := make([]byte, stride)
	for top, bot := 0, len(pix)-stride; top < bot; top, bot = top+stride, bot-stride {
		copy(tmp, pix[top:top+stride])
		copy(pix[top:top+stride], pix[bot:bot+stride])
		copy(pix[bot:bot+stride], tmp)
	}
}

// handler routes the page and the API.
func (v *viewer) handler() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(webFiles, "web")
	mux.Handle("GET /", http.FileServerFS(sub))
	mux.HandleFunc("GET /api/info", v.info)
	for path, b := range map[string][]byte{"GET /api/hillshade.png": v.shade, "GET /api/relief.png": v.relief} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(b)
		})
	}
	mux.HandleFunc("GET /api/frontier", v.limited(serveQueryTimeout, v.frontier))
	mux.HandleFunc("GET /api/frontier.geojson", download("frontier.geojson", v.limited(serveQueryTimeout, v.exportGeoJSON)))
	mux.HandleFunc("GET /api/frontier.png", download("frontier.png", v.limited(serveQueryTimeout, v.exportPNG)))
	mux.HandleFunc("GET /api/pvs.png", v.limited(serveQueryTimeout, v.pvs))
	mux.HandleFunc("GET /api/sim", v.share(v.simSlots, v.limited(servePlaybackTimeout, v.playback)))
	mux.HandleFunc("GET /api/cell", v.limited(serveQueryTimeout, v.cell))
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		jsonError(w, "no such API: "+r.URL.Path, http.StatusNotFound)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.RawQuery)+len(r.URL.Path) > serveMaxURL || r.ContentLength > 0 {
			jsonError(w, "request too large", http.StatusRequestEntityTooLarge)
			return
		}
		if !v.public {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !loopback(strings.Trim(host, "[]")) {
				jsonError(w, fmt.Sprintf("host %q not served: this viewer answers only on loopback (frontierq serve --public to serve others)", r.Host), http.StatusMisdirectedRequest)
				return
			}
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob:")
		mux.ServeHTTP(w, r)
	})
}

// loopback reports whether host names this machine only: "localhost" or a
// loopback IP address. "" (every interface) is not loopback.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serve answers on ln until ctx ends.
func (v *viewer) serve(ctx context.Context, ln net.Listener) error {
	cl := &connLimit{max: connsAllowed(), idle: map[net.Conn]time.Time{}, fresh: map[net.Conn]time.Time{}, gone: map[net.Conn]bool{}}
	h := v.handler()
	handle := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if conn, ok := r.Context().Value(connKey{}).(net.Conn); ok {
			cl.handled(conn)
		}
		h.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: handle, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: servePlaybackTimeout + 5*time.Second, IdleTimeout: serveIdleTimeout, MaxHeaderBytes: serveMaxHeader,
		ConnState: cl.state, ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// connsAllowed is the connections serve keeps open: serveMaxConns, or
// fewer when the process may open fewer descriptors (RLIMIT_NOFILE, less
// 64 for the store, GDAL and the listener), so that accepting never fails
// for want of one (under ulimit -n 1024, 1,100 connections trickling their
// headers made every other request wait 5 s).
func connsAllowed() int {
	n := openFilesAllowed()
	if n <= 0 || n > 1<<20 {
		return serveMaxConns
	}
	return max(8, min(serveMaxConns, n-64))
}

// connLimit keeps at most max connections open: when a new one would pass
// max, idle keep-alive connections are closed, oldest first, then those
// that have not finished sending their first request's header, slowest
// (oldest) first, so that clients holding connections open without asking
// anything, or asking at a trickle, never keep a new client waiting.
// Connections busy with a request are never closed here (the server's
// read and write timeouts bound them).
type connLimit struct {
	mu    sync.Mutex
	max   int
	open  int                    // counted: accepted, not closed, not closed by us
	idle  map[net.Conn]time.Time // since when each idle one waits
	fresh map[net.Conn]time.Time // since when each one reads a request's header (not yet handled)
	gone  map[net.Conn]bool      // closed by us, not yet reported closed
}

// handled marks conn's request as read whole: its handler runs.
func (c *connLimit) handled(conn net.Conn) {
	c.mu.Lock()
	delete(c.fresh, conn)
	c.mu.Unlock()
}

// connKey is the context key of a request's connection (ConnContext).
type connKey struct{}

// oldest returns the connection of m waiting longest, other than but.
func oldest(m map[net.Conn]time.Time, but net.Conn) net.Conn {
	var o net.Conn
	var since time.Time
	for c, t := range m {
		if c != but && (o == nil || t.Before(since)) {
			o, since = c, t
		}
	}
	return o
}

// state is the server's ConnState hook.
func (c *connLimit) state(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case http.StateNew:
		c.open++
		c.fresh[conn] = time.Now()
		for c.open > c.max {
			o := oldest(c.idle, nil)
			if o == nil {
				if o = oldest(c.fresh, conn); o == nil {
					break
				}
			}
			delete(c.idle, o)
			delete(c.fresh, o)
			c.gone[o] = true
			c.open--
			o.Close()
		}
	case http.StateActive: // reading a request: its header is in fresh until handled
		delete(c.idle, conn)
		if _, ok := c.fresh[conn]; !ok {
			c.fresh[conn] = time.Now()
		}
	case http.StateIdle:
		delete(c.fresh, conn)
		c.idle[conn] = time.Now()
	case http.StateHijacked, http.StateClosed:
		delete(c.idle, conn)
		delete(c.fresh, conn)
		if c.gone[conn] {
			delete(c.gone, conn)
		} else {
			c.open--
		}
	}
}

// share runs next with one of slots (a kind of request's share of the
// query slots), or answers 503 when none frees up within serveQueryTimeout.
func (v *viewer) share(slots chan struct{}, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), serveQueryTimeout)
		defer cancel()
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			jsonError(w, "busy: too many simulations at once; try again", http.StatusServiceUnavailable)
			return
		}
		defer func() { <-slots }()
		next(w, r)
	}
}

// limited runs h with one of the viewer's query slots (one per core), or
// answers 503 when none frees up in time, and 503 when h runs past timeout,
// freeing its slot then. h's request carries the timeout's context: a
// frontier query stops within 32 quads of growth, the simulation at its
// next tick.
func (v *viewer) limited(timeout time.Duration, h func(r *http.Request) (contentType string, body []byte, err error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		select {
		case v.slots <- struct{}{}:
		case <-ctx.Done():
			jsonError(w, "busy: too many queries at once; try again", http.StatusServiceUnavailable)
			return
		}
		// The slot is freed when the work ends or the deadline passes,
		// whichever comes first: work past its deadline (which stops at
		// its next check of ctx) holds no slot from then on.
		var free sync.Once
		release := func() { free.Do(func() { <-v.slots }) }
		ch := make(chan answer, 1)
		go func() {
			defer release()
			ch <- guarded(h, r.WithContext(ctx)) // work that checks ctx stops at the timeout
		}()
		defer release()
		select {
		case a := <-ch:
			var bad *badRequest
			switch {
			case errors.As(a.err, &bad):
				jsonError(w, queryTerms(cli.Message(a.err)), http.StatusBadRequest)
			case a.err != nil:
				jsonError(w, a.err.Error(), http.StatusInternalServerError)
			default:
				w.Header().Set("Content-Type", a.ct)
				w.Write(a.body)
			}
		case <-ctx.Done():
			jsonError(w, "query took longer than "+timeout.String(), http.StatusServiceUnavailable)
		}
	}
}

// answer is a handler's result.
type answer struct {
	ct   string
	body []byte
	err  error
}

// guarded runs h, turning a fault of reading the mapped store (its file
// truncated or changed while served: SIGBUS, or the out-of-range reads of
// changed bytes) into an error wrapping fault.ErrFault, answered 500,
// instead of killing the server.
func guarded(h func(r *http.Request) (string, []byte, error), r *http.Request) (a answer) {
	defer fault.Recover(&a.err, fault.Arm())
	a.ct, a.body, a.err = h(r)
	return a
}

// jsonError answers an API error as {"error": msg} with the status code.
func jsonError(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(struct {
		Error string `json:"error"`
	}{msg})
}

// queryParams are the query parameters named like the command's flags,
// longest first.
var queryParams = []string{"grow-larger", "neighbours", "max-steps", "a-lonlat", "b-lonlat", "a-world", "b-world", "method", "merge", "queue", "exact", "a-xy", "b-xy", "at", "a", "b"}

// flagTerm matches a flag of queryParams in a message, with the value
// after it, if any ("--a 99,3", "--merge=no", "--b-xy or").
var flagTerm = regexp.MustCompile(`--(` + strings.Join(queryParams, "|") + `)\b(?:[ =]("[^"]*"|[^\s,;)]+(?:,[^\s,;)]+)*))?`)

// notValues are the words that follow a flag's name in a message but are
// not its value ("give exactly one of --a, --a-xy or --a-lonlat").
var notValues = map[string]bool{"or": true, "and": true, "is": true, "with": true, "to": true, "for": true, "as": true, "in": true}

// queryTerms rewrites a command-line message for an HTTP client: the flag
// "--a 99,3" becomes the query parameter "a=99,3", and a flag named
// without a value its parameter's name ("--b-xy or" becomes "b-xy or").
func queryTerms(msg string) string {
	return flagTerm.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagTerm.FindStringSubmatch(m)
		name, value := sub[1], sub[2]
		if value == "" || notValues[value] {
			return name + strings.TrimPrefix(m, "--"+name)
		}
		return name + "=" + value
	})
}

// badRequest is an error in a request's parameters: the command line's
// one-line message, answered with 400 in query terms (queryTerms).
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

// infoJSON describes the store for the page.
type infoJSON struct {
	Path        string  `json:"path"`
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	DxM         float64 `json:"dx_m"`
	DyM         float64 `json:"dy_m"`
	CRS         string  `json:"crs"`
	Georef      bool    `json:"georeferenced"` // map x/y (and lon/lat with a CRS) in /api/cell
	BudgetBytes int64   `json:"budget_bytes"`
	HiddenKept  float64 `json:"hidden_kept"`
	NodesMax    int     `json:"nodes_max"`
	ElevMinM    float64 `json:"elevation_min_m"` // the lowest and highest cells that are not nodata (the relief's tint)
	ElevMaxM    float64 `json:"elevation_max_m"`
	// Engine is the store's engine frame (pvsbake bake --engine), absent
	// without one: the page reads positions in its axes and draws it as
	// the engine's top view shows it.
	Engine *engineJSON `json:"engine,omitempty"`
}

// engineJSON is /api/info's engine frame.
type engineJSON struct {
	Name   string    `json:"name"`    // unity, unreal or godot
	Axes   [2]string `json:"axes"`    // the world axes along columns and rows
	RowsUp bool      `json:"rows_up"` // row 0 drawn at the bottom (viewer.rowsUp)
}

func (v *viewer) info(w http.ResponseWriter, r *http.Request) {
	s := v.s
	w.Header().Set("Content-Type", "application/json")
	var eng *engineJSON
	if f := s.Engine; f != nil {
		eng = &engineJSON{f.Engine, f.Axes, v.rowsUp}
	}
	json.NewEncoder(w).Encode(infoJSON{v.path, s.Width, s.Height, s.DxM, s.DyM, s.CRSName, s.HasGeoTransform, s.BudgetBytes, s.HiddenKept, s.NodesMax, v.elevMin, v.elevMax, eng})
}

// cell answers GET /api/cell?at=COL,ROW: the cell's map coordinates,
// lon/lat and elevation (cli.Location, as frontierq --json gives a
// player's), for the page's readout.
func (v *viewer) cell(r *http.Request) (string, []byte, error) {
	fset := pflag.NewFlagSet("cell", pflag.ContinueOnError)
	var at cli.PointFlags
	at.Register(fset, "at", "")
	if err := fset.Set("at", r.URL.Query().Get("at")); err != nil {
		return "", nil, &badRequest{err.Error()}
	}
	c, rw, err := at.Cell(storeRef(v.s), v.s.Width, v.s.Height)
	if err != nil {
		return "", nil, &badRequest{err.Error()}
	}
	b, err := json.Marshal(cli.Locate(storeRef(v.s), v.s.Width, v.s.Elev, c, rw))
	return "application/json", b, err
}

// query grows the frontier set a request asks for: a=COL,ROW&b=COL,ROW
// (or a-xy, a-lonlat, b-xy, b-lonlat, located as the command's flags do),
// with method, merge, queue, neighbours, grow-larger and max-steps as the
// command's flags. Errors are *badRequest.
func (v *viewer) query(r *http.Request) (grow.Result, grow.Options, error) {
	q := r.URL.Query()
	fset := pflag.NewFlagSet("frontier", pflag.ContinueOnError)
	var gf growFlags
	gf.register(fset)
	var aFlag, bFlag cli.PointFlags
	aFlag.Register(fset, "a", "")
	bFlag.Register(fset, "b", "")
	var res grow.Result
	for _, name := range []string{"method", "merge", "queue", "neighbours", "grow-larger", "max-steps", "a", "a-xy", "a-lonlat", "a-world", "b", "b-xy", "b-lonlat", "b-world"} {
		if q.Has(name) {
			if err := fset.Set(name, q.Get(name)); err != nil {
				return res, grow.Options{}, &badRequest{fmt.Sprintf("--%s %q: %v", name, q.Get(name), err)}
			}
		}
	}
	opt, err := gf.options()
	if err != nil {
		return res, opt, &badRequest{err.Error()}
	}
	ref := storeRef(v.s)
	ac, ar, err := aFlag.Cell(ref, v.s.Width, v.s.Height)
	if err != nil {
		return res, opt, &badRequest{err.Error()}
	}
	bc, br, err := bFlag.Cell(ref, v.s.Width, v.s.Height)
	if err != nil {
		return res, opt, &badRequest{err.Error()}
	}
	if err := v.gr.GrowContext(r.Context(), [2]int{ac, ar}, [2]int{bc, br}, opt, &grow.Scratch{}, &res); err != nil {
		if errors.Is(err, fault.ErrFault) {
			return res, opt, err // the store's fault, not the request's: 500
		}
		return res, opt, &badRequest{err.Error()}
	}
	return res, opt, nil
}

// frontier answers GET /api/frontier?a=COL,ROW&b=COL,ROW[&method=&merge=&
// queue=&neighbours=&grow-larger=&max-steps=] (see query): frontierq
// --json's object for the same cells and options.
func (v *viewer) frontier(r *http.Request) (string, []byte, error) {
	res, _, err := v.query(r)
	if err != nil {
		return "", nil, err
	}
	b, err := json.Marshal(resultJSON{res.MutuallyVisible, toJSON(v.s, &res.A), toJSON(v.s, &res.B), float64(res.Elapsed.Microseconds()) / 1000, res.Truncated, nil})
	return "application/json", b, err
}

// download offers h's successful answers as a file to save under name
// (Content-Disposition: attachment); errors stay JSON.
func download(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h(&attachmentWriter{ResponseWriter: w, name: name}, r)
	}
}

// attachmentWriter adds the attachment header to a 200 answer.
type attachmentWriter struct {
	http.ResponseWriter
	name string
	done bool
}

func (a *attachmentWriter) WriteHeader(code int) {
	if !a.done && code == http.StatusOK {
		a.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.name}))
	}
	a.done = true
	a.ResponseWriter.WriteHeader(code)
}

func (a *attachmentWriter) Write(b []byte) (int, error) {
	if !a.done {
		a.WriteHeader(http.StatusOK)
	}
	return a.ResponseWriter.Write(b)
}

// exportGeoJSON answers GET /api/frontier.geojson with query's parameters:
// the frontier set as frontierq --geojson writes it (polygons in the
// store's CRS, fields value and side), offered as a download.
func (v *viewer) exportGeoJSON(r *http.Request) (string, []byte, error) {
	res, _, err := v.query(r)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "frontierq-export")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "frontier.geojson")
	if _, err := writeRegions(path, v.s, &res); err != nil {
		return "", nil, err
	}
	b, err := os.ReadFile(path)
	return "application/geo+json", b, err
}

// exportPNG answers GET /api/frontier.png with query's parameters: the
// picture frontierq --png draws, offered as a download.
func (v *viewer) exportPNG(r *http.Request) (string, []byte, error) {
	res, opt, err := v.query(r)
	if err != nil {
		return "", nil, err
	}
	img, err := frontierPicture(v.s, &res, opt)
	if err != nil {
		return "", nil, &badRequest{err.Error()}
	}
	if v.rowsUp {
		flipRows(img.Pix, img.Stride)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", nil, err
	}
	return "image/png", buf.Bytes(), nil
}

// pvs answers GET /api/pvs.png?at=COL,ROW[&exact=1]: the point's PVS as a
// picture of the grid, one pixel per cell: visible green, unknown amber
// (the cap's "maybe"), hidden darkened; with exact=1 the uncompressed
// per-point PVS recomputed from the store's elevations and parameters
// (§3.1), for comparison.
func (v *viewer) pvs(r *http.Request) (string, []byte, error) {
	s := v.s
	c, rw, err := cli.ParseCell("at", r.URL.Query().Get("at"))
	if err != nil {
		return "", nil, &badRequest{err.Error()}
	}
	if c < 0 || rw < 0 || c >= s.Width || rw >= s.Height {
		return "", nil, &badRequest{fmt.Sprintf("--at %d,%d is outside the %d×%d grid: want col 0 to %d, row 0 to %d", c, rw, s.Width, s.Height, s.Width-1, s.Height-1)}
	}
	var wk *horizon.Worker
	if r.URL.Query().Get("exact") == "1" {
		if v.model == nil {
			return "", nil, &badRequest{fmt.Sprintf("exact=1: %s %v", v.path, bake.ErrNeedsHeightmap)}
		}
		wk = v.workers.Get().(*horizon.Worker)
		defer v.workers.Put(wk)
	}
	cells := make([]byte, s.Width*s.Height)
	if err := pvsCells(s, wk, c, rw, cells); err != nil {
		var te *quadpvs.TreeError
		if errors.As(err, &te) {
			return "", nil, err // the store is corrupt: the server's fault, not the request's
		}
		return "", nil, &badRequest{err.Error()}
	}
	img := image.NewNRGBA(image.Rect(0, 0, s.Width, s.Height))
	colors := map[byte]color.NRGBA{pvsVisible: {40, 200, 60, 110}, pvsUnknown: {240, 170, 20, 130}, pvsHidden: {0, 0, 40, 70}}
	for i, v := range cells {
		img.SetNRGBA(i%s.Width, i/s.Width, colors[v])
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", nil, err
	}
	return "image/png", buf.Bytes(), nil
}
