package quadtree

// The tests load GeoTIFF crops, through GDAL's raster driver.
import _ "github.com/frontiersets/frontiersets/heightmap/gdal"
