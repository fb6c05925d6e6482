#!/bin/bash
# Queue a sharded bake on Slurm: an array of SHARDS tasks, then the join.
#   DEM=/shared/tile.hgt OUT=/shared/out/tile SHARDS=64 ./submit.sh
# Variables: DEM, OUT (required), SHARDS (8), PARTS ($PWD/parts), BUDGETS,
# BAKEFLAGS, PVSBAKE (see bake.sbatch and join.sbatch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DEM:?set DEM}" "${OUT:?set OUT}"
shards=${SHARDS:-8}
export DEM OUT
array=$(sbatch --parsable --export=ALL --array="0-$((shards - 1))" "$here/bake.sbatch")
array=${array%%;*}
join=$(sbatch --parsable --export=ALL --dependency="afterok:$array" --kill-on-invalid-dep=yes "$here/join.sbatch")
echo "queued shards as job $array, the join as job ${join%%;*}"
