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
case $shards in
*[!0-9]* | '' | 0)
	echo "submit.sh: SHARDS must be a whole number from 1, not '$shards'" >&2
	exit 2
	;;
esac
export DEM OUT
# SBATCHFLAGS: split on blanks into separate options (no globbing, no
# quotes within an option).
read -r -a sflags <<<"${SBATCHFLAGS:-}"
array=$(sbatch --parsable --export=ALL "${sflags[@]}" --array="0-$((shards - 1))" "$here/bake.sbatch")
array=${array%%;*}
join=$(sbatch --parsable --export=ALL "${sflags[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes "$here/join.sbatch")
echo "queued shards as job $array, the join as job ${join%%;*}"
