#!/bin/bash
# Queue a sharded bake on Slurm: an array of SHARDS tasks, then the join.
#   DEM=/shared/tile.hgt OUT=/shared/out/tile SHARDS=64 ./submit.sh
# Variables: DEM, OUT (required), SHARDS (8), PARTS ($PWD/parts), BUDGETS,
# BAKEFLAGS, PVSBAKE (see bake.sbatch and join.sbatch); SBATCHFLAGS, more
# sbatch options for both jobs, e.g. "--cpus-per-task=2 --mem=2G --partition=x"
# (they override the scripts' #SBATCH lines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DEM:?set DEM}" "${OUT:?set OUT}"
shards=${SHARDS:-8}
export DEM OUT
# shellcheck disable=SC2086
array=$(sbatch --parsable --export=ALL ${SBATCHFLAGS:-} --array="0-$((shards - 1))" "$here/bake.sbatch")
array=${array%%;*}
# shellcheck disable=SC2086
join=$(sbatch --parsable --export=ALL ${SBATCHFLAGS:-} --dependency="afterok:$array" --kill-on-invalid-dep=yes "$here/join.sbatch")
echo "queued shards as job $array, the join as job ${join%%;*}"
