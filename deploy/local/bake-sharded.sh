#!/bin/sh
# Try the sharded bake on one machine: N shards as separate processes, P at
# a time (xargs -P), then the join. On one machine a single
# `pvsbake bake --workers` already uses every core; this is for checking a
# recipe before sending it to a cluster, or for splitting a long bake into
# restartable pieces (a finished shard's partial file is kept; rerun only
# the missing ones).
#   deploy/local/bake-sharded.sh N P DEM OUT [bake flags, e.g. --budget 1GiB]
set -eu
if [ $# -lt 4 ]; then
	echo "usage: $0 N P DEM OUT [pvsbake bake flags]" >&2
	exit 2
fi
n=$1 p=$2 dem=$3 out=$4
shift 4
case $n$p in
*[!0-9]* | '')
	echo "$0: N and P must be whole numbers, not '$n' and '$p'" >&2
	exit 2
	;;
esac
PVSBAKE=${PVSBAKE:-pvsbake}
parts=${PARTS:-$out.parts}
mkdir -p "$parts"
export PVSBAKE dem parts n
# shellcheck disable=SC2016 # the inner sh expands them
seq 0 $((n - 1)) | xargs -P "$p" -I{} sh -c '
	[ -f "$parts/part-$0" ] && exit 0
	exec "$PVSBAKE" bake "$dem" -o "$parts/part-$0" --shard "$0/$n" --workers 1 --quiet --yes "$@"' {} "$@"
# The partial files as the join's arguments, each path one word whatever
# it holds (spaces, quotes, semicolons).
set --
i=0
while [ "$i" -lt "$n" ]; do
	set -- "$@" "$parts/part-$i"
	i=$((i + 1))
done
exec "$PVSBAKE" join -o "$out" "$@"
