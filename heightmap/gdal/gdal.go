//go:build cgo

package gdal

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

// pvs_delaunay triangulates n points; it returns the number of triangles
// written to tri (3 vertex indices each, at most cap triangles), or -1 when
// GDAL cannot triangulate them.
static int pvs_delaunay(int n, const double *x, const double *y, int *tri, int cap) {
	GDALTriangulation *t = GDALTriangulationCreateDelaunay(n, x, y);
	if (t == NULL) {
		return -1;
	}
	int m = t->nFacets < cap ? t->nFacets : cap;
	for (int i = 0; i < m; i++) {
		tri[3 * i] = t->pasFacets[i].anVertexIdx[0];
		tri[3 * i + 1] = t->pasFacets[i].anVertexIdx[1];
		tri[3 * i + 2] = t->pasFacets[i].anVertexIdx[2];
	}
	GDALTriangulationFree(t);
	return m;
}

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

static GDALDatasetH pvs_create_gtiff(const char *path, int w, int h, int bands, GDALDataType t) {
	GDALDriverH drv = GDALGetDriverByName("GTiff");
	if (drv == NULL) return NULL;
	char **opts = NULL;
	opts = CSLSetNameValue(opts, "COMPRESS", "DEFLATE");
	opts = CSLSetNameValue(opts, "TILED", "YES");
	if (bands > 1) opts = CSLSetNameValue(opts, "INTERLEAVE", "BAND");
	GDALDatasetH ds = GDALCreate(drv, path, w, h, bands, t, opts);
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

// pvs_transform converts n points in place between lon/lat on WGS 84 and
// the CRS given as WKT, both in GIS order (x = lon or easting). It returns
// 0 when either CRS cannot be parsed or a point cannot be transformed.
static int pvs_transform(const char *wkt, int to_lonlat, int n, double *x, double *y) {
	OGRSpatialReferenceH crs = OSRNewSpatialReference(NULL);
	OGRSpatialReferenceH wgs = OSRNewSpatialReference(NULL);
	int ok = OSRImportFromWkt(crs, (char **)&wkt) == OGRERR_NONE && OSRImportFromEPSG(wgs, 4326) == OGRERR_NONE;
	OGRCoordinateTransformationH ct = NULL;
	if (ok) {
		OSRSetAxisMappingStrategy(crs, OAMS_TRADITIONAL_GIS_ORDER);
		OSRSetAxisMappingStrategy(wgs, OAMS_TRADITIONAL_GIS_ORDER);
		ct = to_lonlat ? OCTNewCoordinateTransformation(crs, wgs) : OCTNewCoordinateTransformation(wgs, crs);
		ok = ct != NULL && OCTTransform(ct, n, x, y, NULL);
	}
	if (ct != NULL) OCTDestroyCoordinateTransformation(ct);
	OSRDestroySpatialReference(crs);
	OSRDestroySpatialReference(wgs);
	return ok;
}

// pvs_mem_byte makes an in-memory byte dataset of w×h cells on the
// geotransform gt (NULL: none) and CRS wkt ("" : none).
static GDALDatasetH pvs_mem_byte(int w, int h, unsigned char *data, double *gt, const char *wkt) {
	GDALDriverH drv = GDALGetDriverByName("MEM");
	if (drv == NULL) return NULL;
	GDALDatasetH ds = GDALCreate(drv, "", w, h, 1, GDT_Byte, NULL);
	if (ds == NULL) return NULL;
	if (gt != NULL) GDALSetGeoTransform(ds, gt);
	if (wkt[0] != 0) GDALSetProjection(ds, wkt);
	if (GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, w, h, data, w, h, GDT_Byte, 0, 0) != CE_None) {
		GDALClose(ds);
		return NULL;
	}
	return ds;
}

// pvs_polygonize traces the regions of equal non-zero value of src's band
// (GDALPolygonize, 4-connected, the band as its own mask) and writes them
// as polygons with the fields value (int) and side (labels[value]) to a new
// vector file path of the given driver, in src's CRS. It returns the number
// of polygons, or -1 on failure (GDAL's error set).
static int pvs_polygonize(GDALDatasetH src, const char *path, const char *driver, char **labels) {
	GDALDriverH mdrv = GDALGetDriverByName("Memory");
	if (mdrv == NULL) mdrv = GDALGetDriverByName("MEM");
	GDALDriverH odrv = GDALGetDriverByName(driver);
	if (mdrv == NULL || odrv == NULL) {
		CPLError(CE_Failure, CPLE_AppDefined, "GDAL has no %s vector driver", odrv == NULL ? driver : "Memory");
		return -1;
	}
	const char *wkt = GDALGetProjectionRef(src);
	OGRSpatialReferenceH srs = NULL;
	if (wkt != NULL && wkt[0] != 0) {
		srs = OSRNewSpatialReference(NULL);
		if (OSRImportFromWkt(srs, (char **)&wkt) != OGRERR_NONE) {
			OSRDestroySpatialReference(srs);
			srs = NULL;
		} else if (OSRGetAuthorityCode(srs, NULL) == NULL) {
			// A CRS without its code (a GeoTIFF's "unnamed" LCC): use the
			// EPSG entry it matches, as pvs_srs names it, so that formats
			// that store only a code (GeoJSON) keep it.
			int nm = 0;
			int *conf = NULL;
			OGRSpatialReferenceH *m = OSRFindMatches(srs, NULL, &nm, &conf);
			if (m != NULL && nm > 0 && conf[0] >= 70) {
				OSRDestroySpatialReference(srs);
				srs = OSRClone(m[0]);
			}
			if (m != NULL) OSRFreeSRSArray(m);
			CPLFree(conf);
		}
	}
	if (srs != NULL) {
		OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
		if (EQUAL(driver, "GeoJSON") && OSRGetAuthorityCode(srs, NULL) == NULL) {
			CPLError(CE_Failure, CPLE_AppDefined, "GeoJSON can only name a CRS by its EPSG code and this one has none; write a .gpkg instead");
			OSRDestroySpatialReference(srs);
			return -1;
		}
	}
	int n = -1;
	GDALDatasetH mem = GDALCreate(mdrv, "", 0, 0, 0, GDT_Unknown, NULL);
	GDALDatasetH out = GDALCreate(odrv, path, 0, 0, 0, GDT_Unknown, NULL);
	OGRLayerH ml = NULL, ol = NULL;
	if (mem != NULL) ml = GDALDatasetCreateLayer(mem, "regions", srs, wkbPolygon, NULL);
	if (out != NULL) ol = GDALDatasetCreateLayer(out, "frontiers", srs, wkbPolygon, NULL);
	if (ml != NULL && ol != NULL) {
		OGRFieldDefnH fv = OGR_Fld_Create("value", OFTInteger);
		OGRFieldDefnH fs = OGR_Fld_Create("side", OFTString);
		int ok = OGR_L_CreateField(ml, fv, 1) == OGRERR_NONE && OGR_L_CreateField(ol, fv, 1) == OGRERR_NONE &&
			OGR_L_CreateField(ol, fs, 1) == OGRERR_NONE;
		OGR_Fld_Destroy(fv);
		OGR_Fld_Destroy(fs);
		GDALRasterBandH b = GDALGetRasterBand(src, 1);
		if (ok && GDALPolygonize(b, b, ml, 0, NULL, NULL, NULL) == CE_None) {
			n = 0;
			OGR_L_ResetReading(ml);
			OGRFeatureH f;
			while (n >= 0 && (f = OGR_L_GetNextFeature(ml)) != NULL) {
				int v = OGR_F_GetFieldAsInteger(f, 0);
				OGRFeatureH g = OGR_F_Create(OGR_L_GetLayerDefn(ol));
				OGR_F_SetFieldInteger(g, 0, v);
				if (v >= 0 && v < 256 && labels[v] != NULL) OGR_F_SetFieldString(g, 1, labels[v]);
				OGR_F_SetGeometry(g, OGR_F_GetGeometryRef(f));
				if (OGR_L_CreateFeature(ol, g) != OGRERR_NONE) n = -1; else n++;
				OGR_F_Destroy(g);
				OGR_F_Destroy(f);
			}
		}
	}
	if (srs != NULL) OSRDestroySpatialReference(srs);
	if (mem != NULL) GDALClose(mem);
	if (out != NULL) {
		CPLErrorReset();
		GDALClose(out);
		if (CPLGetLastErrorType() >= CE_Failure) n = -1;
	}
	return n;
}

// pvs_count_features opens the vector file path and returns the features
// of its first layer, or -1 when it cannot be read (GDAL's error set).
static long long pvs_count_features(const char *path) {
	GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, NULL, NULL, NULL);
	if (ds == NULL) return -1;
	long long n = -1;
	OGRLayerH l = GDALDatasetGetLayer(ds, 0);
	if (l != NULL) n = OGR_L_GetFeatureCount(l, 1);
	GDALClose(ds);
	return n;
}
// pvs_read_points reads the point features of the first layer of the vector
// file path into x and y (at most cap points). It returns the number of
// points, -1 when the file cannot be read (GDAL's error set), or -2 - i when
// feature i (from 0) is not a point. *wkt receives the layer's CRS as WKT
// (free with CPLFree), or NULL when the layer has none.
static long long pvs_read_points(const char *path, double *x, double *y, long long cap, char **wkt) {
	*wkt = NULL;
	GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
	if (ds == NULL) return -1;
	OGRLayerH l = GDALDatasetGetLayer(ds, 0);
	if (l == NULL) {
		GDALClose(ds);
		CPLError(CE_Failure, CPLE_AppDefined, "the file holds no layer");
		return -1;
	}
	OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(l);
	if (srs != NULL) OSRExportToWkt(srs, wkt);
	OGR_L_ResetReading(l);
	long long n = 0, i = 0;
	OGRFeatureH f;
	while ((f = OGR_L_GetNextFeature(l)) != NULL) {
		OGRGeometryH g = OGR_F_GetGeometryRef(f);
		if (g == NULL || wkbFlatten(OGR_G_GetGeometryType(g)) != wkbPoint || OGR_G_IsEmpty(g)) {
			OGR_F_Destroy(f);
			GDALClose(ds);
			return -2 - i;
		}
		if (n < cap) {
			x[n] = OGR_G_GetX(g, 0);
			y[n] = OGR_G_GetY(g, 0);
		}
		n++;
		i++;
		OGR_F_Destroy(f);
	}
	GDALClose(ds);
	return n;
}

// pvs_same_srs reports whether two WKT CRSs are the same (OSRIsSame).
static int pvs_same_srs(const char *a, const char *b) {
	OGRSpatialReferenceH sa = OSRNewSpatialReference(NULL), sb = OSRNewSpatialReference(NULL);
	int same = OSRImportFromWkt(sa, (char **)&a) == OGRERR_NONE &&
	           OSRImportFromWkt(sb, (char **)&b) == OGRERR_NONE && OSRIsSame(sa, sb);
	OSRDestroySpatialReference(sa);
	OSRDestroySpatialReference(sb);
	return same;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
)

func init() {
	heightmap.RegisterDriver(heightmap.Driver{Read: read, Transform: transform})
}

var gdalOnce sync.Once

func gdalInit() { gdalOnce.Do(func() { C.pvs_init() }) }

// lastError returns GDAL's last error message on this thread, or fallback
// when GDAL recorded none.
func lastError(fallback string) error {
	msg := strings.TrimSpace(C.GoString(C.CPLGetLastErrorMsg()))
	if msg == "" {
		msg = fallback
	}
	return errors.New(shorten(msg))
}

// shorten keeps the first line of a message of GDAL's, at most 200
// characters (a GeoPackage error can quote kilobytes of SQL).
func shorten(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	return msg
}

// describeCRS parses a WKT string through OSR.
func describeCRS(wkt string) (*heightmap.CRSInfo, error) {
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
	return &heightmap.CRSInfo{
		WKT: wkt, Name: C.GoString(&name[0]),
		Geographic: geo != 0, Projected: proj != 0,
		LinearUnit: float64(lin), AngularUnit: float64(ang),
		SemiMajor: float64(a), InvFlattening: float64(invf),
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
		return "", fmt.Errorf("gdal: EPSG:%d: %w", code, lastError("unknown CRS"))
	}
	defer C.CPLFree(unsafe.Pointer(w))
	return C.GoString(w), nil
}

// read opens path read-only, describes band (from 1; 0: the only band),
// calls plan with the description and reads the window it returns as
// float32, row-major (data[r*win.Width+c]); see heightmap.Driver.Read.
// Only the window's rows are read from disk.
func read(path string, bandNo int, plan func(heightmap.RasterInfo) (heightmap.Window, error)) (heightmap.RasterInfo, []float32, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var info heightmap.RasterInfo
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	C.CPLErrorReset()
	ds := C.GDALOpenEx(cpath, C.GDAL_OF_RASTER|C.GDAL_OF_READONLY|C.GDAL_OF_VERBOSE_ERROR, nil, nil, nil)
	if ds == nil {
		return info, nil, fmt.Errorf("%w: %v", heightmap.ErrNotRaster, lastError("GDAL cannot open it"))
	}
	defer C.GDALClose(ds)
	if drv := C.GDALGetDatasetDriver(ds); drv != nil {
		info.Driver = C.GoString(C.GDALGetDriverShortName(drv))
	}
	info.Width = int(C.GDALGetRasterXSize(ds))
	info.Height = int(C.GDALGetRasterYSize(ds))
	bands := int(C.GDALGetRasterCount(ds))
	if bands < 1 || info.Width <= 0 || info.Height <= 0 {
		return info, nil, heightmap.ErrEmpty
	}
	switch {
	case bandNo == 0 && bands > 1:
		return info, nil, fmt.Errorf("%w: %s; pick the elevation band with --band N", heightmap.ErrBands, describeBands(ds, bands))
	case bandNo == 0:
		bandNo = 1
	case bandNo < 0 || bandNo > bands:
		return info, nil, fmt.Errorf("band %d: the raster has %d (%s)", bandNo, bands, describeBands(ds, bands))
	}
	var gt [6]C.double
	if C.GDALGetGeoTransform(ds, &gt[0]) == C.CE_None {
		info.HasGeoTransform = true
	}
	for i := range gt {
		info.GeoTransform[i] = float64(gt[i])
	}
	if wkt := C.GoString(C.GDALGetProjectionRef(ds)); wkt != "" {
		crs, err := describeCRS(wkt)
		if err != nil {
			return info, nil, err
		}
		info.CRS = crs
	}
	band := C.GDALGetRasterBand(ds, C.int(bandNo))
	var ok C.int
	nd := C.GDALGetRasterNoDataValue(band, &ok)
	info.Nodata, info.HasNodata = float64(nd), ok != 0
	info.Scale = float64(C.GDALGetRasterScale(band, &ok))
	if ok == 0 || info.Scale == 0 {
		info.Scale = 1
	}
	info.Offset = float64(C.GDALGetRasterOffset(band, &ok))
	if ok == 0 {
		info.Offset = 0
	}
	info.UnitType = C.GoString(C.GDALGetRasterUnitType(band))
	info.DataType = C.GoString(C.GDALGetDataTypeName(C.GDALGetRasterDataType(band)))

	win, err := plan(info)
	if err != nil {
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
func writeGeoTIFF(path string, ref heightmap.Georef, w, h int, t C.GDALDataType, pixels []unsafe.Pointer, names []string, nodata *float64, style *MaskStyle) (err error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// A locked temporary file (atomicfile.Create), which GDAL writes by
	// name: the next write of path removes what a killed writer left.
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Abort()
		}
	}()
	cpath := C.CString(tmpName)
	defer C.free(unsafe.Pointer(cpath))
	C.CPLErrorReset()
	ds := C.pvs_create_gtiff(cpath, C.int(w), C.int(h), C.int(len(pixels)), t)
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
	for b, px := range pixels {
		band := C.GDALGetRasterBand(ds, C.int(b+1))
		if b < len(names) {
			cn := C.CString(names[b])
			C.GDALSetDescription(C.GDALMajorObjectH(band), cn)
			C.free(unsafe.Pointer(cn))
		}
		if nodata != nil {
			C.GDALSetRasterNoDataValue(band, C.double(*nodata))
		}
		if style != nil && len(style.Colors) > 0 {
			ct := C.GDALCreateColorTable(C.GPI_RGB)
			for v := range 256 {
				c := style.Colors[uint8(v)]
				e := C.GDALColorEntry{c1: C.short(c.R), c2: C.short(c.G), c3: C.short(c.B), c4: C.short(c.A)}
				C.GDALSetColorEntry(ct, C.int(v), &e)
			}
			ok := C.GDALSetRasterColorTable(band, ct) == C.CE_None
			C.GDALDestroyColorTable(ct)
			if !ok {
				return lastError("cannot set the colour table")
			}
		}
		if C.GDALRasterIO(band, C.GF_Write, 0, 0, C.int(w), C.int(h), px, C.int(w), C.int(h), t, 0, 0) != C.CE_None {
			return lastError("writing the raster failed")
		}
	}
	closed = true
	C.CPLErrorReset()
	C.GDALClose(ds)
	if msg := strings.TrimSpace(C.GoString(C.CPLGetLastErrorMsg())); msg != "" && C.CPLGetLastErrorType() >= C.CE_Failure {
		return errors.New(msg)
	}
	return atomicfile.CommitAll([]*atomicfile.Temp{tmp})
}

// WriteMask writes width×height bytes (row-major, data[row*width+col]) as a
// one-band byte GeoTIFF on the georeferencing ref, atomically (temporary
// file, then rename): masks and viewsheds on a grid's own cells, with the
// colour table and nodata value of style (nil: none). Errors wrap GDAL's
// message and name path.
func WriteMask(path string, ref heightmap.Georef, width, height int, data []byte, style *MaskStyle) error {
	if len(data) != width*height || width <= 0 || height <= 0 {
		return fmt.Errorf("gdal: mask of %d bytes for a %d×%d grid", len(data), width, height)
	}
	var nodata *float64
	if style != nil && style.HasNodata {
		v := float64(style.Nodata)
		nodata = &v
	}
	if err := writeGeoTIFF(path, ref, width, height, C.GDT_Byte, []unsafe.Pointer{unsafe.Pointer(&data[0])}, nil, nodata, style); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteCounts writes width×height counts (row-major, data[row*width+col])
// as a one-band UInt32 GeoTIFF on the georeferencing ref, atomically
// (temporary file, then rename): cumulative viewsheds. Errors wrap GDAL's
// message and name path.
func WriteCounts(path string, ref heightmap.Georef, width, height int, data []uint32) error {
	if len(data) != width*height || width <= 0 || height <= 0 {
		return fmt.Errorf("gdal: %d counts for a %d×%d grid", len(data), width, height)
	}
	if err := writeGeoTIFF(path, ref, width, height, C.GDT_UInt32, []unsafe.Pointer{unsafe.Pointer(&data[0])}, nil, nil, nil); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteBands writes bands of width×height float64 values (each row-major,
// band[row*width+col]) as one Float64 GeoTIFF on the georeferencing ref,
// band i+1 described by names[i], atomically (temporary file, then
// rename): total viewsheds. Errors wrap GDAL's message and name path.
func WriteBands(path string, ref heightmap.Georef, width, height int, bands [][]float64, names []string) error {
	if width <= 0 || height <= 0 || len(bands) == 0 {
		return fmt.Errorf("gdal: %d bands for a %d×%d grid", len(bands), width, height)
	}
	px := make([]unsafe.Pointer, len(bands))
	for i, b := range bands {
		if len(b) != width*height {
			return fmt.Errorf("gdal: band %d of %d values for a %d×%d grid", i+1, len(b), width, height)
		}
		px[i] = unsafe.Pointer(&b[0])
	}
	if err := writeGeoTIFF(path, ref, width, height, C.GDT_Float64, px, names, nil, nil); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteElevation writes g's elevations (metres, float32) as a GeoTIFF on g's
// georeferencing, with nodata cells set to NaN, atomically.
func WriteElevation(path string, g *heightmap.Grid) error {
	data := g.Elev
	if g.NodataCount > 0 {
		data = append([]float32(nil), g.Elev...)
		for i, nd := range g.Nodata {
			if nd {
				data[i] = float32(math.NaN())
			}
		}
	}
	var nd *float64
	if g.NodataCount > 0 {
		v := math.NaN()
		nd = &v
	}
	if err := writeGeoTIFF(path, g.Georef, g.Width, g.Height, C.GDT_Float32, []unsafe.Pointer{unsafe.Pointer(&data[0])}, nil, nd, nil); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Viewshed runs GDAL's viewshed (GDALViewshedGenerate, in memory, no
// Earth curvature) on a grid's elevations, for benchmarks that compare the
// project's visibility with GDAL's on the same grid and observers. It is not
// safe for concurrent use; Close frees it.
type Viewshed struct {
	ds     C.GDALDatasetH
	w, h   int
	dx, dy float64
}

// NewViewshed copies g's elevations (metres) into an in-memory GDAL
// dataset on a metric grid of g's cell spacing.
func NewViewshed(g *heightmap.Grid) (*Viewshed, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.CPLErrorReset()
	ds := C.pvs_mem_dem(C.int(g.Width), C.int(g.Height), (*C.float)(unsafe.Pointer(&g.Elev[0])), C.double(g.Dx), C.double(g.Dy))
	if ds == nil {
		return nil, fmt.Errorf("gdal: viewshed: %w", lastError("cannot make an in-memory dataset"))
	}
	return &Viewshed{ds: ds, w: g.Width, h: g.Height, dx: g.Dx, dy: g.Dy}, nil
}

// Viewshed computes the visibility of every cell from an observer at cell
// (col,row), eye observerHeight metres above the ground, targets
// targetHeight metres tall, into dst (Width×Height bytes, row-major: 255
// visible, 0 hidden), as gdal_viewshed -cc 0 does.
func (v *Viewshed) Viewshed(col, row int, observerHeight, targetHeight float64, dst []byte) error {
	if len(dst) != v.w*v.h || col < 0 || row < 0 || col >= v.w || row >= v.h {
		return fmt.Errorf("gdal: viewshed from (%d,%d) into %d bytes for a %d×%d grid", col, row, len(dst), v.w, v.h)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.CPLErrorReset()
	x, y := (float64(col)+0.5)*v.dx, -(float64(row)+0.5)*v.dy
	if C.pvs_viewshed(v.ds, C.double(x), C.double(y), C.double(observerHeight), C.double(targetHeight), (*C.uchar)(unsafe.Pointer(&dst[0])), C.int(v.w), C.int(v.h)) == 0 {
		return fmt.Errorf("gdal: viewshed: %w", lastError("GDALViewshedGenerate failed"))
	}
	return nil
}

// Close frees the in-memory dataset.
func (v *Viewshed) Close() {
	if v.ds != nil {
		C.GDALClose(v.ds)
		v.ds = nil
	}
}

// transform converts the points (x[i], y[i]) in place between lon/lat in
// degrees on WGS 84 and the CRS wkt (GIS order: x is lon or easting),
// through GDAL; see heightmap.Driver.Transform.
func transform(wkt string, toLonLat bool, x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("gdal: transform %d x and %d y coordinates", len(x), len(y))
	}
	if len(x) == 0 {
		return nil
	}
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cw := C.CString(wkt)
	defer C.free(unsafe.Pointer(cw))
	to := C.int(0)
	if toLonLat {
		to = 1
	}
	C.CPLErrorReset()
	// SAFETY: x and y hold len(x) float64s each, laid out as C doubles,
	// and hold no Go pointers; C transforms them in place during the call.
	if C.pvs_transform(cw, to, C.int(len(x)), (*C.double)(unsafe.Pointer(&x[0])), (*C.double)(unsafe.Pointer(&y[0]))) == 0 {
		return lastError("GDAL cannot transform between the grid's CRS and WGS 84 lon/lat")
	}
	return nil
}

// polygonize writes the regions of data (width×height bytes, row-major) to
// a vector file; see WriteRegions.
func polygonize(path, driver string, ref heightmap.Georef, width, height int, data []byte, labels map[byte]string) (int, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var gt *C.double
	var cgt [6]C.double
	if ref.HasGeoTransform {
		for i, v := range ref.GeoTransform {
			cgt[i] = C.double(v)
		}
		gt = &cgt[0]
	}
	cw := C.CString(ref.CRS)
	defer C.free(unsafe.Pointer(cw))
	C.CPLErrorReset()
	src := C.pvs_mem_byte(C.int(width), C.int(height), (*C.uchar)(unsafe.Pointer(&data[0])), gt, cw)
	if src == nil {
		return 0, lastError("GDAL cannot make an in-memory raster")
	}
	defer C.GDALClose(src)
	// The labels are C strings in a C array (cgo forbids Go pointers to Go
	// pointers in C calls); GDAL only reads them.
	arr := (*[256]*C.char)(C.calloc(256, C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	defer C.free(unsafe.Pointer(arr))
	for v, s := range labels {
		arr[v] = C.CString(s)
		defer C.free(unsafe.Pointer(arr[v]))
	}
	cp, cd := C.CString(path), C.CString(driver)
	defer C.free(unsafe.Pointer(cp))
	defer C.free(unsafe.Pointer(cd))
	n := C.pvs_polygonize(src, cp, cd, &arr[0])
	if n < 0 {
		return 0, lastError("GDAL cannot write the polygons")
	}
	// GDAL's GeoJSON writer does not report a failed write (a full disk):
	// the file must read back whole.
	C.CPLErrorReset()
	if got := C.pvs_count_features(cp); got != C.longlong(n) {
		return 0, fmt.Errorf("the file reads back with %d of the %d polygons written (is the disk full?)", int64(got), int(n))
	}
	return int(n), nil
}

// Delaunay appends to dst the triangles of the Delaunay triangulation of
// the points (x[i], y[i]) in a plane (any unit), as triples of point
// indices, through GDAL (GDALTriangulationCreateDelaunay, qhull). The
// points must be distinct and not all on one line; at most 2n triangles
// are returned for n points. Errors: fewer than 3 points, mismatched
// lengths, and GDAL's own (degenerate input), as one line.
func Delaunay(x, y []float64, dst [][3]int32) ([][3]int32, error) {
	n := len(x)
	if n < 3 || len(y) != n || n > 1<<24 {
		return dst, fmt.Errorf("gdal: Delaunay triangulation of %d×%d coordinates: want 3 to 2^24 points", len(x), len(y))
	}
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tri := make([]C.int, 3*2*n)
	C.CPLErrorReset()
	// SAFETY: x and y hold n float64s each (checked above), laid out as C
	// doubles, and hold no Go pointers; C reads them during the call only.
	m := C.pvs_delaunay(C.int(n), (*C.double)(unsafe.Pointer(&x[0])), (*C.double)(unsafe.Pointer(&y[0])), &tri[0], C.int(2*n))
	if m < 0 {
		return dst, fmt.Errorf("gdal: Delaunay triangulation of %d points: %w", n, lastError("GDAL could not triangulate them (all on one line?)"))
	}
	for i := range int(m) {
		dst = append(dst, [3]int32{int32(tri[3*i]), int32(tri[3*i+1]), int32(tri[3*i+2])})
	}
	return dst, nil
}

// readPoints reads the point features of path's first layer; see ReadPoints.
func readPoints(path string, maxPoints int) (Points, error) {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	for capacity := 1024; ; {
		x, y := make([]float64, capacity), make([]float64, capacity)
		var wkt *C.char
		C.CPLErrorReset()
		n := int64(C.pvs_read_points(cp, (*C.double)(&x[0]), (*C.double)(&y[0]), C.longlong(capacity), &wkt))
		var p Points
		if wkt != nil {
			p.CRS = C.GoString(wkt)
			C.CPLFree(unsafe.Pointer(wkt))
		}
		switch {
		case n == -1:
			return Points{}, lastError("GDAL cannot read it as a vector file")
		case n < -1:
			return Points{}, fmt.Errorf("feature %d is not a point: give a layer of points", -n-2)
		case n > int64(maxPoints):
			return Points{}, fmt.Errorf("%d points, more than the %d allowed", n, maxPoints)
		case n <= int64(capacity):
			p.X, p.Y = x[:n], y[:n]
			if p.CRS != "" {
				info, err := describeCRS(p.CRS)
				if err != nil {
					return Points{}, err
				}
				p.Geographic = info.Geographic
			}
			return p, nil
		}
		capacity = int(n)
	}
}

// sameCRS reports whether WKT CRSs a and b are the same, through OSR.
func sameCRS(a, b string) bool {
	gdalInit()
	ca, cb := C.CString(a), C.CString(b)
	defer C.free(unsafe.Pointer(ca))
	defer C.free(unsafe.Pointer(cb))
	return C.pvs_same_srs(ca, cb) != 0
}
