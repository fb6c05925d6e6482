#!/bin/sh
# Device checks: region model v2 beside Total_Viewshed (avx2 and avx512
# kernels) and the default model's scaling on a many-core machine.
cd "$(dirname "$0")" && mkdir -p tv/output tv/input
{ nproc; grep -m1 "model name" /proc/cpuinfo; grep -o -m1 'avx512f' /proc/cpuinfo; lscpu | grep -E 'Thread|Core|Socket|MHz|L3'; free -g | head -2; } > "$OUT/machine.txt" 2>&1
mkdir -p "$OUT/avx2" "$OUT/avx512" "$OUT/scaling"
./bin/bench bake --cases none --peer-observers 0 --tv tv --tv-raw --pvsbake ./bin/pvsbake --los region,conservative,sector \
  --tmp /tmp/bb --out "$OUT/avx2" 2>&1 | tee "$OUT/log.txt"
FRONTIERSETS_KERNELS=avx512 ./bin/bench bake --cases none --peer-observers 0 --tv tv --tv-raw --pvsbake ./bin/pvsbake --los region,sector \
  --tmp /tmp/bb5 --out "$OUT/avx512" 2>&1 | tee -a "$OUT/log.txt"
./bin/bench scaling --pvsbake ./bin/pvsbake --dem scale385.r16 --window 64,64,257,257 --cell-size 18 --height-range 301.72,1094.446 \
  --max-distance 2000 --los region --workers 1,2,4,8,16 --tmp /tmp/sc --out "$OUT/scaling" 2>&1 | tee -a "$OUT/log.txt"
