#!/bin/sh
# Device: the default (region) model, 2 km, 1 GiB, on the 18 m map's
# centred 2049² and 1025² windows (16-bit RAW), 16 and 8 workers: wall
# time against the projection printed at the start, and peak RSS (VmHWM
# polled every 0.2 s). Files flat under $OUT.
cd "$(dirname "$0")"
{ nproc; grep -m1 "model name" /proc/cpuinfo; grep -o -m1 'avx512f' /proc/cpuinfo; free -g | head -2; } > "$OUT/machine.txt" 2>&1
one() { # name workers window
  name=$1; shift; w=$1; shift
  t0=$(date +%s.%N)
  ./bin/pvsbake bake w2049.r16 --cell-size 18 --height-range 243.546,1263.484 --max-distance 2000 --budget 1GiB \
    --workers "$w" "$@" -o /tmp/$name.pvs > "$OUT/$name.out" 2> "$OUT/$name.err" &
  pid=$!; hwm=0
  while kill -0 $pid 2>/dev/null; do
    h=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null); [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
    sleep 0.2
  done
  wait $pid; rc=$?
  t1=$(date +%s.%N)
  echo "$name workers=$w rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}") peak_kB=$hwm" | tee -a "$OUT/summary.txt"
  ls -la /tmp/$name.pvs >> "$OUT/summary.txt" 2>&1; rm -f /tmp/$name.pvs
}
one w1025-16 16 --window 512,512,1025,1025
one w2049-16 16
