#!/usr/bin/env bash
# The gated generation loop (scripts/loop.sh) on a Slurm cluster: every step is a job, chained
# with `sbatch --dependency=afterok`, submitted all at once from a login node:
#
#   generation G:  selfplay (array of SHARDS shards) -> merge -> train -> gate (match + verdict)
#   and selfplay, train and gate of G wait for the gate of G-1 (they use its best player);
#   then (ANCHOR=1, the default) the final best net against generation 0.
#
#   scripts/slurm_loop.sh --dry-run       # print the job graph (names, dependencies, commands)
#   scripts/slurm_loop.sh                 # submit it
#   VARIANTS=all GENERATIONS=10 GAMES=200000 SHARDS=32 scripts/slurm_loop.sh
#
# Settings: those of scripts/loop.sh (VARIANTS, GENERATIONS, GAMES, NODES, WINDOW, EPOCHS,
# LAMBDA, MATCH_GAMES, MATCH_NODES, ELO0, ELO1, SEED, OUT, BIN, NET / NET_<variant>,
# TRAIN_ARGS, SELFPLAY_ARGS, MATCH_ARGS), plus
#   SHARDS [16]  self-play array tasks per generation
#   CPUS_SELFPLAY [8]  CPUS_TRAIN [16]  CPUS_GATE [16]  cores per job (the tools' --threads)
#   TIME_SELFPLAY [12:00:00]  TIME_MERGE [1:00:00]  TIME_TRAIN [12:00:00]  TIME_GATE [6:00:00]
#   MEM [8G]  SBATCH_ARGS []  more sbatch options for every job, e.g. "--partition=cpu"
# OUT and BIN must be on a file system the compute nodes share; the binaries (kage-selfplay,
# kage-train, kage-data) are not built here: cargo build --release first.
#
# Requeue-safe and resumable: jobs are submitted with --requeue; each step returns at once when
# its marker exists and otherwise continues its tool's half-done work (self-play batches, the
# trainer's checkpoint, the match log), writing outputs by temp file + rename. Steps whose
# marker exists are not submitted again, so after a failure (the dependent jobs are cancelled:
# --kill-on-invalid-dep=yes) rerunning the same command submits what is left. Logs:
# OUT/<variant>/logs/<job name>-<job id>[_<task>].log.
#
# Inside a job the script runs one step: scripts/slurm_loop.sh --step NAME VARIANT GEN
# (NAME: selfplay, merge, train, gate, anchor; selfplay takes its shard from SLURM_ARRAY_TASK_ID).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/loop_lib.sh
. "$HERE/loop_lib.sh"
loop_defaults

SHARDS=${SHARDS:-16}
CPUS_SELFPLAY=${CPUS_SELFPLAY:-8}
CPUS_TRAIN=${CPUS_TRAIN:-16}
CPUS_GATE=${CPUS_GATE:-16}
TIME_SELFPLAY=${TIME_SELFPLAY:-12:00:00}
TIME_MERGE=${TIME_MERGE:-1:00:00}
TIME_TRAIN=${TIME_TRAIN:-12:00:00}
TIME_GATE=${TIME_GATE:-6:00:00}
MEM=${MEM:-8G}
SBATCH_ARGS=${SBATCH_ARGS:-}

usage() {
  echo "usage: scripts/slurm_loop.sh [--dry-run] | --step selfplay|merge|train|gate|anchor VARIANT GEN" >&2
  exit 2
}

# --- inside a job: one step --------------------------------------------------------------
if [[ ${1:-} == --step ]]; then
  [[ $# -eq 4 ]] || usage
  step=$2 v=$3 g=$4
  [[ $g =~ ^[1-9][0-9]*$ ]] || { echo "slurm_loop: bad generation '$g'" >&2; exit 2; }
  THREADS=${SLURM_CPUS_PER_TASK:-$THREADS}
  case $step in
    selfplay)
      shard=${SLURM_ARRAY_TASK_ID:?the selfplay step runs as an array task (SLURM_ARRAY_TASK_ID)}
      step_selfplay "$v" "$g" "$shard" "$SHARDS"
      ;;
    merge) step_merge "$v" "$g" "$SHARDS" ;;
    train) step_train "$v" "$g" ;;
    gate) step_gate "$v" "$g" ;;
    anchor) step_anchor "$v" "$g" ;;
    *) usage ;;
  esac
  exit 0
fi

# --- on the login node: the job graph ----------------------------------------------------
dry=0
case ${1:-} in
  --dry-run) dry=1 ;;
  "") ;;
  *) usage ;;
esac
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || { echo "slurm_loop: SHARDS must be a positive number" >&2; exit 2; }
if [[ -n $NET && ${#LOOP_VARIANTS[@]} -ne 1 ]]; then
  echo "slurm_loop: NET is for one variant; with several, set NET_<variant>=FILE" >&2
  exit 1
fi
if ((!dry)); then
  command -v sbatch >/dev/null || { echo "slurm_loop: sbatch not found (--dry-run prints the graph)" >&2; exit 1; }
  for b in kage-selfplay kage-train kage-data; do
    [[ -x $BIN/$b ]] || { echo "slurm_loop: $BIN/$b missing: cargo build --release" >&2; exit 1; }
  done
fi
ROOT=$(cd "$HERE/.." && pwd)
abs() { if [[ $1 == /* ]]; then echo "$1"; else echo "$PWD/$1"; fi; }
OUT=$(abs "$OUT")
BIN=$(abs "$BIN")

# join WORDS...: the non-empty words, space-separated.
join() {
  local out=() w
  for w in "$@"; do if [[ -n $w ]]; then out+=("$w"); fi; done
  echo "${out[*]}"
}

declare -A ids # job name -> job id (dry run: the name)

# submit NAME DEPS(space-separated names) CPUS TIME ARRAY(or "") STEP VARIANT GEN
submit() {
  local name=$1 deps=$2 cpus=$3 time=$4 array=$5 step=$6 v=$7 g=$8
  local cmd dep_ids=() d
  cmd=$(printf 'OUT=%q BIN=%q SHARDS=%q bash %q --step %q %q %q' "$OUT" "$BIN" "$SHARDS" \
    "$ROOT/scripts/slurm_loop.sh" "$step" "$v" "$g")
  for d in $deps; do dep_ids+=("${ids[$d]}"); done
  if ((dry)); then
    local after=${deps// /,}
    printf 'job %s\tarray=%s\tafter=%s\tcpus=%s\t%s\n' "$name" "${array:--}" "${after:--}" \
      "$cpus" "$cmd"
    ids[$name]=$name
    return
  fi
  local args=(--parsable --job-name="$name" --requeue --kill-on-invalid-dep=yes --chdir="$ROOT"
    --cpus-per-task="$cpus" --time="$time" --mem="$MEM")
  local log=$OUT/$v/logs/$name-%j.log
  if [[ -n $array ]]; then
    args+=(--array="$array")
    log=$OUT/$v/logs/$name-%A_%a.log
  fi
  args+=(--output="$log")
  if ((${#dep_ids[@]})); then args+=(--dependency="afterok:$(IFS=:; echo "${dep_ids[*]}")"); fi
  # shellcheck disable=SC2206
  args+=($SBATCH_ARGS)
  local id
  id=$(sbatch "${args[@]}" --wrap "$cmd")
  id=${id%%;*}
  ids[$name]=$id
  echo "submitted $name: job $id" >&2
}

for v in "${LOOP_VARIANTS[@]}"; do
  vdir=$OUT/$v
  if ((!dry)); then
    step_init "$v"
    mkdir -p "$vdir/logs"
  fi
  prev="" # the previous generation's gate job, when it is still to run
  for ((g = 1; g <= GENERATIONS; g++)); do
    d=$vdir/gen-$g
    base=kage-$v-g$g
    sp="" train=""
    if [[ ! -f $d/selfplay.done ]]; then
      submit "$base-selfplay" "$prev" "$CPUS_SELFPLAY" "$TIME_SELFPLAY" "0-$((SHARDS - 1))" \
        selfplay "$v" "$g"
      submit "$base-merge" "$base-selfplay" 1 "$TIME_MERGE" "" merge "$v" "$g"
      sp=$base-merge
    fi
    if [[ ! -f $d/train.done ]]; then
      submit "$base-train" "$(join "$sp" "$prev")" "$CPUS_TRAIN" "$TIME_TRAIN" "" train "$v" "$g"
      train=$base-train
    fi
    if [[ ! -f $d/best.txt ]]; then
      submit "$base-gate" "$(join "$train" "$prev")" "$CPUS_GATE" "$TIME_GATE" "" gate "$v" "$g"
      prev=$base-gate
    fi
  done
  # The best net against generation 0 (returns at once when it has been played or when
  # nothing was accepted).
  if ((ANCHOR && GENERATIONS > 0)); then
    submit "kage-$v-anchor" "$prev" "$CPUS_GATE" "$TIME_GATE" "" anchor "$v" "$GENERATIONS"
  fi
done
