#!/bin/bash
# Fixed density: windows whose standable cells per bot match 1,024 bots on
# the benchmark windows (side 500·√(N/1024) urban, 316·√(N/1024) open,
# centred on them), budgets in proportion to the cells. Run from this
# folder; stores go to $WORK (default /tmp/density), the JSON reports here.
set -eu
here=$(pwd)
repo=$(cd ../../../../.. && pwd)
data=${DATA:-$repo/../shared/data}
WORK=${WORK:-/tmp/density}
mkdir -p "$WORK/bin"
(cd "$repo" && GOEXPERIMENT=simd go build -o "$WORK/bin/" ./cmd/pvsbake ./cmd/frontierq)
B=$WORK/bin
U=$data/annarbor-dsm-2ft.tif
H=$data/N44W072.hgt
bake() { [ -s "$WORK/$3.pvs" ] || "$B/pvsbake" bake "$1" --window "$2" --budget "$4" -o "$WORK/$3.pvs" -q; }
bake "$U" 362,403,63,63 u63 8MiB
bake "$U" 331,372,125,125 u125 32MiB
bake "$U" 268,309,250,250 u250 128MiB
bake "$H" 838,838,40,40 o40 8MiB
bake "$H" 819,819,79,79 o79 32MiB
bake "$H" 779,779,158,158 o158 128MiB
for x in "u63 16" "u125 64" "u250 256" "o40 16" "o79 64" "o158 256"; do
	set -- $x
	"$B/frontierq" sim "$WORK/$1.pvs" --bots "$2" --minutes 0.5 --schemes CS,GQ,RP,VG --json -q > "$here/$1-$2.json"
done
WORK=${WORK:-/tmp/density}; "$WORK/bin/frontierq" sim "$WORK/u250.pvs" --bots 256 --minutes 0.5 --hz 20 --schemes CS,GQ,RP,VG --json -q > u250-256-hz20.json # the crowded town at 20 Hz
