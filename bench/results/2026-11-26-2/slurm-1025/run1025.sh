#!/bin/bash
# 1025² full-range: 8 shards on the one-node Slurm, joined, against a single bake.
set -euo pipefail
export SLURM_CONF=/tmp/slurm/slurm.conf
cd /tmp/s7
BIN=/tmp/s7/pvsbake
WIN=1791,2643,1025,1025
DEM=/tmp/scale/utm18.tif
rm -rf parts && mkdir -p parts
cp /work/main/deploy/slurm/bake.sbatch /work/main/deploy/slurm/join.sbatch .
cat > timed.sh <<EOT
#!/bin/bash
exec /usr/bin/time -v -o "/tmp/s7/time-\${SLURM_ARRAY_TASK_ID}.txt" $BIN "\$@"
EOT
chmod +x timed.sh
start=$(date +%s)
jid=$(DEM=$DEM PARTS=/tmp/s7/parts BUDGETS=64MiB,256MiB BAKEFLAGS="--window $WIN --los sector" PVSBAKE=/tmp/s7/timed.sh \
  sbatch --parsable --export=ALL --cpus-per-task=1 --mem=3G --array=0-7 bake.sbatch)
echo "array $jid"
while squeue -h -j "$jid" | grep -q .; do sleep 10; done
echo "array done in $(( $(date +%s) - start )) s"
/usr/bin/time -v -o time-join.txt $BIN join -o joined parts/part-* 2>&1 | tail -3
echo "single bake:"
/usr/bin/time -v -o time-single.txt $BIN bake $DEM --window $WIN --budget 64MiB,256MiB -o single --workers 2 --quiet --los sector 2>&1 | tail -3
for b in 64MiB 256MiB; do cmp joined-$b.pvs single-$b.pvs && echo "$b: byte-identical"; done
