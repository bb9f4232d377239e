#!/usr/bin/env bash
# Self-play as a Slurm job array: every array task runs one shard of the same run. (The whole
# generation loop on Slurm, with merge, training and gating jobs: scripts/slurm_loop.sh.)
#
#   sbatch --array=0-15 scripts/slurm_selfplay.sh                 # 16 shards
#   VARIANT=shinobi GAMES=200000 NODES=5000 sbatch --array=0-31 scripts/slurm_selfplay.sh
#
# Shard i of N plays the game indices g with g % N == i, so the shards are disjoint and
# together are exactly the unsharded run. A task that is killed or preempted resumes where
# it stopped when requeued or resubmitted (complete batches are kept, the output is
# byte-identical to an uninterrupted run). Afterwards join the shards:
#
#   kage-data merge --out games.kdata     $OUT/$VARIANT/shard-*/games.kdata
#   kage-data merge --out positions.kdata $OUT/$VARIANT/shard-*/positions.kdata
#
# Settings come from the environment (defaults below); SHARDS defaults to the array size,
# which must be the same for every task of one run.
#SBATCH --job-name=kage-selfplay
#SBATCH --array=0-15
#SBATCH --cpus-per-task=8
#SBATCH --mem=4G
#SBATCH --time=12:00:00
#SBATCH --requeue
#SBATCH --output=selfplay-%A_%a.log
set -euo pipefail

VARIANT=${VARIANT:-minishogi}
GAMES=${GAMES:-100000}
NODES=${NODES:-5000}
SEED=${SEED:-1}
OUT=${OUT:-data/selfplay}
KAGE_SELFPLAY=${KAGE_SELFPLAY:-target/release/kage-selfplay}
SHARD=${SLURM_ARRAY_TASK_ID:?run this under sbatch --array (SLURM_ARRAY_TASK_ID is not set)}
SHARDS=${SHARDS:-${SLURM_ARRAY_TASK_COUNT:?set SHARDS to the number of array tasks}}
THREADS=${SLURM_CPUS_PER_TASK:-1}

args=(generate --variant "$VARIANT" --games "$GAMES" --nodes "$NODES" --seed "$SEED"
      --threads "$THREADS" --shard "$SHARD" --shards "$SHARDS" --out "$OUT" --quiet)
# NET: optional NNUE network for the searcher.
if [[ -n ${NET:-} ]]; then args+=(--net "$NET"); fi
# EXTRA: further options, e.g. EXTRA="--opening-plies 10 --max-plies 400".
# shellcheck disable=SC2206
if [[ -n ${EXTRA:-} ]]; then args+=($EXTRA); fi

echo "shard $SHARD/$SHARDS on $(hostname): $KAGE_SELFPLAY ${args[*]}"
exec "$KAGE_SELFPLAY" "${args[@]}"
