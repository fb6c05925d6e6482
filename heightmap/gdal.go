//go:build cgo

package heightmap

// This file is the project's only binding to libgdal (Debian's libgdal-dev,
// GDAL ≥ 3.6). The Go bindings on the module proxy are not available here, so
// the few C functions the project needs are called directly through cgo.
//
// GDAL keeps its last error per OS thread; every function below locks the
// goroutine to its thread while it calls GDAL, so that the message read by
// lastError belongs to the call that failed.

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <string.h>
#include <gdal.h>
#include <cpl_error.h>
#include <cpl_conv.h>
#include <cpl_string.h>
#include <ogr_srs_api.h>
#include <gdal_alg.h>

static void pvs_init(void) {
	GDALAllRegister();
	CPLSetErrorHandler(CPLQuietErrorHandler);
}

// pvs_srs describes a CRS given as WKT. It returns 0 when the WKT cannot be
// parsed. name receives "EPSG:<code>" when the CRS matches an EPSG entry
// with confidence >= 70, else the CRS's own name.
static int pvs_srs(const char *wkt, int *geographic, int *projected,
                   double *linear, double *angular, double *a, double *invf,
                   char *name, int namelen) {
	OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
	if (OSRImportFromWkt(srs, (char **)&wkt) != OGRERR_NONE) {
		OSRDestroySpatialReference(srs);
		return 0;
	}
	*geographic = OSRIsGeographic(srs);
	*projected = OSRIsProjected(srs);
	*linear = OSRGetLinearUnits(srs, NULL);
	*angular = OSRGetAngularUnits(srs, NULL);
	*a = OSRGetSemiMajor(srs, NULL);
	*invf = OSRGetInvFlattening(srs, NULL);
	name[0] = 0;
	int n = 0;
	int *conf = NULL;
	OGRSpatialReferenceH *m = OSRFindMatches(srs, NULL, &n, &conf);
	if (m != NULL && n > 0 && conf[0] >= 70) {
		const char *auth = OSRGetAuthorityName(m[0], NULL);
		const char *code = OSRGetAuthorityCode(m[0], NULL);
		if (auth != NULL && code != NULL) {
			snprintf(name, namelen, "%s:%s", auth, code);
		}
	}
	if (m != NULL) OSRFreeSRSArray(m);
	CPLFree(conf);
	if (name[0] == 0) {
		const char *nm = OSRGetName(srs);
		if (nm != NULL) snprintf(name, namelen, "%s", nm);
	}
	OSRDestroySpatialReference(srs);
	return 1;
}

// pvs_epsg_wkt returns the WKT of an EPSG code (free with CPLFree), or NULL.
static char *pvs_epsg_wkt(int code) {
	OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
	char *wkt = NULL;
	if (OSRImportFromEPSG(srs, code) == OGRERR_NONE) {
		OSRExportToWkt(srs, &wkt);
	}
	OSRDestroySpatialReference(srs);
	return wkt;
}

static GDALDatasetH pvs_create_gtiff(const char *path, int w, int h, GDALDataType t) {
	GDALDriverH drv = GDALGetDriverByName("GTiff");
	if (drv == NULL) return NULL;
	char **opts = NULL;
	opts = CSLSetNameValue(opts, "COMPRESS", "DEFLATE");
	opts = CSLSetNameValue(opts, "TILED", "YES");
	GDALDatasetH ds = GDALCreate(drv, path, w, h, 1, t, opts);
	CSLDestroy(opts);
	return ds;
}

// pvs_mem_dem makes an in-memory float32 dataset of w×h elevations on a
// metric grid (origin 0,0, dx × dy metres per cell), for GDAL's viewshed.
static GDALDatasetH pvs_mem_dem(int w, int h, float *elev, double dx, double dy) {
	GDALDriverH drv = GDALGetDriverByName("MEM");
	if (drv == NULL) return NULL;
	GDALDatasetH ds = GDALCreate(drv, "", w, h, 1, GDT_Float32, NULL);
	if (ds == NULL) return NULL;
	double gt[6] = {0, dx, 0, 0, 0, -dy};
	GDALSetGeoTransform(ds, gt);
	if (GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, w, h, elev, w, h, GDT_Float32, 0, 0) != CE_None) {
		GDALClose(ds);
		return NULL;
	}
	return ds;
}

// pvs_viewshed runs GDALViewshedGenerate (in memory, no curvature, edge
// mode) from the point (x,y) and reads the result (255 visible, 0 hidden)
// into out. It returns 0 on failure.
static int pvs_viewshed(GDALDatasetH dem, double x, double y, double oh, double th, unsigned char *out, int w, int h) {
	GDALDatasetH vs = GDALViewshedGenerate(GDALGetRasterBand(dem, 1), "MEM", "", NULL, x, y, oh, th,
		255, 0, 0, 0, 0.0, GVM_Edge, 0, NULL, NULL, GVOT_NORMAL, NULL);
	if (vs == NULL) return 0;
	int ok = GDALRasterIO(GDALGetRasterBand(vs, 1), GF_Read, 0, 0, w, h, out, w, h, GDT_Byte, 0, 0) == CE_None;
	GDALClose(vs);
	return ok;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

var gdalOnce sync.Once

func gdalInit() { gdalOnce.Do(func() { C.pvs_init() }) }

// lastError returns GDAL's last error message on this thread, or fallback
// when GDAL recorded none.
func lastError(fallback string) error {
	msg := strings.TrimSpace(C.GoString(C.CPLGetLastErrorMsg()))
	if msg == "" {
		msg = fallback
	}
	return errors.New(msg)
}

// describeCRS parses a WKT string through OSR.
func describeCRS(wkt string) (*crsInfo, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cw := C.CString(wkt)
	defer C.free(unsafe.Pointer(cw))
	var geo, proj C.int
	var lin, ang, a, invf C.double
	var name [256]C.char
	C.CPLErrorReset()
	if C.pvs_srs(cw, &geo, &proj, &lin, &ang, &a, &invf, &name[0], C.int(len(name))) == 0 {
		return nil, lastError("cannot parse the coordinate reference system")
	}
	return &crsInfo{
		wkt: wkt, name: C.GoString(&name[0]),
		geographic: geo != 0, projected: proj != 0,
		linearUnit: float64(lin), angularUnit: float64(ang),
		semiMajor: float64(a), invFlattening: float64(invf),
	}, nil
}

// CRSFromEPSG returns the WKT of the CRS with the given EPSG code, or GDAL's
// error when the code is unknown.
func CRSFromEPSG(code int) (string, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.CPLErrorReset()
	w := C.pvs_epsg_wkt(C.int(code))
	if w == nil {
		return "", fmt.Errorf("heightmap: EPSG:%d: %w", code, lastError("unknown CRS"))
	}
	defer C.CPLFree(unsafe.Pointer(w))
	return C.GoString(w), nil
}

// gdalRead opens path read-only and reads band (from 1; 0: the only band)
// of the window win (cells; a zero Window means the whole raster) as
// float32, row-major (data[r*win.Width+c]). Only the window's rows are read
// from disk. Before any cell is allocated or read it calls before with the
// raster's description and the window to read; its error aborts the read.
// It returns the raster's description and the cells before any unit
// conversion or nodata handling.
func gdalRead(path string, win Window, bandNo int, before func(rasterInfo, Window) error) (rasterInfo, []float32, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var info rasterInfo
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	C.CPLErrorReset()
	ds := C.GDALOpenEx(cpath, C.GDAL_OF_RASTER|C.GDAL_OF_READONLY|C.GDAL_OF_VERBOSE_ERROR, nil, nil, nil)
	if ds == nil {
		return info, nil, fmt.Errorf("%w: %v", ErrNotRaster, lastError("GDAL cannot open it"))
	}
	defer C.GDALClose(ds)
	if drv := C.GDALGetDatasetDriver(ds); drv != nil {
		info.driver = C.GoString(C.GDALGetDriverShortName(drv))
	}
	info.width = int(C.GDALGetRasterXSize(ds))
	info.height = int(C.GDALGetRasterYSize(ds))
	bands := int(C.GDALGetRasterCount(ds))
	if bands < 1 || info.width <= 0 || info.height <= 0 {
		return info, nil, ErrEmpty
	}
	switch {
	case bandNo == 0 && bands > 1:
		return info, nil, fmt.Errorf("%w: %s; pick the elevation band with --band N", ErrBands, describeBands(ds, bands))
	case bandNo == 0:
		bandNo = 1
	case bandNo < 0 || bandNo > bands:
		return info, nil, fmt.Errorf("band %d: the raster has %d (%s)", bandNo, bands, describeBands(ds, bands))
	}
	var gt [6]C.double
	if C.GDALGetGeoTransform(ds, &gt[0]) == C.CE_None {
		info.hasGeoTransform = true
	}
	for i := range gt {
		info.geoTransform[i] = float64(gt[i])
	}
	if wkt := C.GoString(C.GDALGetProjectionRef(ds)); wkt != "" {
		crs, err := describeCRS(wkt)
		if err != nil {
			return info, nil, err
		}
		info.crs = crs
	}
	band := C.GDALGetRasterBand(ds, C.int(bandNo))
	var ok C.int
	nd := C.GDALGetRasterNoDataValue(band, &ok)
	info.nodata, info.hasNodata = float64(nd), ok != 0
	info.scale = float64(C.GDALGetRasterScale(band, &ok))
	if ok == 0 || info.scale == 0 {
		info.scale = 1
	}
	info.offset = float64(C.GDALGetRasterOffset(band, &ok))
	if ok == 0 {
		info.offset = 0
	}
	info.unitType = C.GoString(C.GDALGetRasterUnitType(band))

	if win == (Window{}) {
		win = Window{Width: info.width, Height: info.height}
	}
	if err := win.check(info.width, info.height); err != nil {
		return info, nil, err
	}
	if err := before(info, win); err != nil {
		return info, nil, err
	}
	data := make([]float32, win.Width*win.Height)
	C.CPLErrorReset()
	if C.GDALRasterIO(band, C.GF_Read, C.int(win.Col), C.int(win.Row), C.int(win.Width), C.int(win.Height),
		unsafe.Pointer(&data[0]), C.int(win.Width), C.int(win.Height), C.GDT_Float32, 0, 0) != C.CE_None {
		return info, nil, lastError("reading the raster failed")
	}
	return info, data, nil
}

// describeBands lists a dataset's bands as "1 Red Byte, 2 Green Byte,
// 3 Blue Byte" (number, colour interpretation, data type).
func describeBands(ds C.GDALDatasetH, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		band := C.GDALGetRasterBand(ds, C.int(i))
		sep := ", "
		if i == 1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s%d %s %s", sep, i,
			C.GoString(C.GDALGetColorInterpretationName(C.GDALGetRasterColorInterpretation(band))),
			C.GoString(C.GDALGetDataTypeName(C.GDALGetRasterDataType(band))))
	}
	return b.String()
}

// writeGeoTIFF writes one band of w×h cells (row-major, pixel type t) to a
// DEFLATE-compressed tiled GeoTIFF on the georeferencing ref. It writes to a
// temporary file beside path and renames it, so an interrupted write never
// leaves a partial file under path.
func writeGeoTIFF(path string, ref Georef, w, h int, t C.GDALDataType, pixels unsafe.Pointer, nodata *float64) (err error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*.tif")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer func() {
		if err != nil {
			os.Remove(tmpName)
		}
	}()
	cpath := C.CString(tmpName)
	defer C.free(unsafe.Pointer(cpath))
	C.CPLErrorReset()
	ds := C.pvs_create_gtiff(cpath, C.int(w), C.int(h), t)
	if ds == nil {
		return lastError("GDAL cannot create a GeoTIFF there")
	}
	closed := false
	defer func() {
		if !closed {
			C.GDALClose(ds)
		}
	}()
	if ref.HasGeoTransform {
		var gt [6]C.double
		for i, v := range ref.GeoTransform {
			gt[i] = C.double(v)
		}
		if C.GDALSetGeoTransform(ds, &gt[0]) != C.CE_None {
			return lastError("cannot set the geotransform")
		}
	}
	if ref.CRS != "" {
		cw := C.CString(ref.CRS)
		defer C.free(unsafe.Pointer(cw))
		if C.GDALSetProjection(ds, cw) != C.CE_None {
			return lastError("cannot set the coordinate reference system")
		}
	}
	band := C.GDALGetRasterBand(ds, 1)
	if nodata != nil {
		C.GDALSetRasterNoDataValue(band, C.double(*nodata))
	}
	if C.GDALRasterIO(band, C.GF_Write, 0, 0, C.int(w), C.int(h), pixels, C.int(w), C.int(h), t, 0, 0) != C.CE_None {
		return lastError("writing the raster failed")
	}
	closed = true
	C.CPLErrorReset()
	C.GDALClose(ds)
	if msg := strings.TrimSpace(C.GoString(C.CPLGetLastErrorMsg())); msg != "" && C.CPLGetLastErrorType() >= C.CE_Failure {
		return errors.New(msg)
	}
	if err := os.Chmod(tmpName, 0o644); err != nil {
		return err
	}
	return os.Rename(tmpName, path)
}

// WriteMask writes width×height bytes (row-major, data[row*width+col]) as a
// one-band byte GeoTIFF on the georeferencing ref, atomically (temporary
// file, then rename): masks and viewsheds on a grid's own cells. Errors wrap
// GDAL's message and name path.
func WriteMask(path string, ref Georef, width, height int, data []byte) error {
	if len(data) != width*height || width <= 0 || height <= 0 {
		return fmt.Errorf("heightmap: mask of %d bytes for a %d×%d grid", len(data), width, height)
	}
	if err := writeGeoTIFF(path, ref, width, height, C.GDT_Byte, unsafe.Pointer(&data[0]), nil); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteElevation writes g's elevations (metres, float32) as a GeoTIFF on g's
// georeferencing, with nodata cells set to NaN, atomically.
func WriteElevation(path string, g *Grid) error {
	data := g.Elev
	if g.NodataCount > 0 {
		data = append([]float32(nil), g.Elev...)
		for i, nd := range g.Nodata {
			if nd {
				data[i] = float32(nan())
			}
		}
	}
	var nd *float64
	if g.NodataCount > 0 {
		v := nan()
		nd = &v
	}
	if err := writeGeoTIFF(path, g.Georef, g.Width, g.Height, C.GDT_Float32, unsafe.Pointer(&data[0]), nd); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// GDALViewshed runs GDAL's viewshed (GDALViewshedGenerate, in memory, no
// Earth curvature) on a grid's elevations, for benchmarks that compare the
// project's visibility with GDAL's on the same grid and observers. It is not
// safe for concurrent use; Close frees it.
type GDALViewshed struct {
	ds     C.GDALDatasetH
	w, h   int
	dx, dy float64
}

// NewGDALViewshed copies g's elevations (metres) into an in-memory GDAL
// dataset on a metric grid of g's cell spacing.
func NewGDALViewshed(g *Grid) (*GDALViewshed, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.CPLErrorReset()
	ds := C.pvs_mem_dem(C.int(g.Width), C.int(g.Height), (*C.float)(unsafe.Pointer(&g.Elev[0])), C.double(g.Dx), C.double(g.Dy))
	if ds == nil {
		return nil, fmt.Errorf("heightmap: GDAL viewshed: %w", lastError("cannot make an in-memory dataset"))
	}
	return &GDALViewshed{ds: ds, w: g.Width, h: g.Height, dx: g.Dx, dy: g.Dy}, nil
}

// Viewshed computes the visibility of every cell from an observer at cell
// (col,row), eye observerHeight metres above the ground, targets
// targetHeight metres tall, into dst (Width×Height bytes, row-major: 255
// visible, 0 hidden), as gdal_viewshed -cc 0 does.
func (v *GDALViewshed) Viewshed(col, row int, observerHeight, targetHeight float64, dst []byte) error {
	if len(dst) != v.w*v.h || col < 0 || row < 0 || col >= v.w || row >= v.h {
		return fmt.Errorf("heightmap: GDAL viewshed from (%d,%d) into %d bytes for a %d×%d grid", col, row, len(dst), v.w, v.h)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.CPLErrorReset()
	x, y := (float64(col)+0.5)*v.dx, -(float64(row)+0.5)*v.dy
	if C.pvs_viewshed(v.ds, C.double(x), C.double(y), C.double(observerHeight), C.double(targetHeight), (*C.uchar)(unsafe.Pointer(&dst[0])), C.int(v.w), C.int(v.h)) == 0 {
		return fmt.Errorf("heightmap: GDAL viewshed: %w", lastError("GDALViewshedGenerate failed"))
	}
	return nil
}

// Close frees the in-memory dataset.
func (v *GDALViewshed) Close() {
	if v.ds != nil {
		C.GDALClose(v.ds)
		v.ds = nil
	}
}
