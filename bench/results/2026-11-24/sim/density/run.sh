#!/bin/bash
set -x
B=/tmp/bin
U=/work/shared/data/annarbor-dsm-2ft.tif
H=/work/shared/data/N44W072.hgt
# fixed density: the window's area proportional to the bots (1,024 on the benchmark windows)
$B/pvsbake bake $U --window 331,372,125,125 --budget 32MiB -o u125.pvs -q
$B/pvsbake bake $U --window 268,309,250,250 --budget 128MiB -o u250.pvs -q
$B/pvsbake bake $U --window 362,403,63,63 --budget 8MiB -o u63.pvs -q
$B/pvsbake bake $H --window 819,819,79,79 --budget 32MiB -o o79.pvs -q
$B/pvsbake bake $H --window 779,779,158,158 --budget 128MiB -o o158.pvs -q
$B/pvsbake bake $H --window 838,838,40,40 --budget 8MiB -o o40.pvs -q
for x in "u63 16" "u125 64" "u250 256" "o40 16" "o79 64" "o158 256"; do set -- $x
  $B/frontierq sim $1.pvs --bots $2 --minutes 0.5 --schemes CS,GQ,RP --json -q > $1-$2.json 2>&1
done
# fixed map: 16 bots on the benchmark windows
$B/frontierq sim ../urban-0.5.pvs --bots 16 --minutes 0.5 --schemes CS,GQ,RP --json -q > urban-16.json 2>&1
$B/frontierq sim ../open-0.5.pvs --bots 16 --minutes 0.5 --schemes CS,GQ,RP --json -q > open-16.json 2>&1
echo done > done
