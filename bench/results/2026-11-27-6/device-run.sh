#!/bin/sh
# The device checks of the bake's scaling and the Total_Viewshed comparison
# on a many-core machine (no Go, no GDAL: CGO_ENABLED=0 binaries, RAW input).
cd "$(dirname "$0")" && mkdir -p tv/output tv/input
{ nproc; grep -m1 "model name" /proc/cpuinfo; grep -o -m1 'avx512f' /proc/cpuinfo; free -g | head -2; which taskset; } > "$OUT/machine.txt" 2>&1
./bin/bench bake --cases none --peer-observers 0 --tv tv --tv-raw --pvsbake ./bin/pvsbake --los conservative,sector,region \
  --tmp /tmp/bb --out "$OUT" 2>&1 | tee "$OUT/log.txt"
./bin/bench scaling --pvsbake ./bin/pvsbake --dem scale385.r16 --window "" --cell-size 18 --height-range 301.72,1094.446 \
  --max-distance 2000 --workers 1,2,4,8,16 --tmp /tmp/sc --out "$OUT" 2>&1 | tee -a "$OUT/log.txt"
