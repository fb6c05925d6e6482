"""Write one cell's stored PVS as a GeoTIFF on the store's grid, with GDAL's
Python bindings (Debian's python3-gdal) for the raster:

    python3 examples/python/pvs_geotiff.py STORE DEM.tif col row OUT.tif

DEM.tif is the raster the store was baked from, cropped to the store's
window (for its geotransform and CRS); the output's cells are 255 visible
(or possibly visible, where the cap dropped hidden cells), 0 hidden.
"""

import sys

from osgeo import gdal

import frontiersets

gdal.UseExceptions()


def main(argv):
    if len(argv) != 6:
        print("usage: pvs_geotiff.py STORE DEM.tif col row OUT.tif", file=sys.stderr)
        return 2
    store_path, dem_path, col, row, out = argv[1], argv[2], int(argv[3]), int(argv[4]), argv[5]
    with frontiersets.open(store_path) as store:
        mask = store.pvs((col, row))
        lon, lat = store.cell_to_lonlat((col, row))
    dem = gdal.Open(dem_path)
    if (dem.RasterXSize, dem.RasterYSize) != (mask.shape[1], mask.shape[0]):
        print(f"{dem_path} is {dem.RasterXSize}×{dem.RasterYSize}, the store {mask.shape[1]}×{mask.shape[0]}", file=sys.stderr)
        return 1
    ds = gdal.GetDriverByName("GTiff").Create(out, mask.shape[1], mask.shape[0], 1, gdal.GDT_Byte, ["COMPRESS=DEFLATE"])
    ds.SetGeoTransform(dem.GetGeoTransform())
    ds.SetProjection(dem.GetProjection())
    ds.GetRasterBand(1).WriteArray(mask)
    ds = None
    print(f"wrote {out}: the PVS of ({col},{row}) at {lon:.5f},{lat:.5f}: {int((mask == 255).sum())} visible cells")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
