#!/usr/bin/env bash
# One more generation after a variant's recipe, from the net that is shipped now: self-play by
# that net, a net trained from it on the positions of every generation of the recipe's run plus
# the new games, and an equal-time match of the two, which decides (the recipe's gate plays at
# fixed nodes, where gains at equal time can go unseen). With INSTALL=1 the new net is copied to
# engine/nets/<variant>.nnue when the lower end of the match's 95% Elo interval is above 0.
#
#   scripts/refine_net.sh VARIANT                       # step 1 into runs/net/VARIANT/refine-1
#   REFINE_STEP=2 scripts/refine_net.sh VARIANT         # a later step also trains on step 1's games
#
# Settings (environment first, then the REFINE_* lines of scripts/recipes/VARIANT.env, then the
# defaults below): OUT (the recipe's run, default runs/net), NET (default
# engine/nets/VARIANT.nnue), REFINE_STEP, REFINE_GAMES, REFINE_NODES, REFINE_SELFPLAY_ARGS,
# REFINE_SEED (self-play), REFINE_TRAIN_SEED, REFINE_LAMBDA, REFINE_EPOCHS, REFINE_TRAIN_ARGS
# (more kage-train options, e.g. "--lr 3e-4"), REFINE_MATCH_GAMES,
# REFINE_MOVETIME (ms), REFINE_MATCH_SEED, THREADS, BIN (the release binaries). Same settings =>
# same games and the same net, whatever THREADS is. Each step is skipped when its `.done`
# marker is there: rerun the command after an interruption.
set -euo pipefail

variant=${1:?usage: scripts/refine_net.sh VARIANT}
here=$(dirname "${BASH_SOURCE[0]}")
recipe=$here/recipes/$variant.env
[[ -f $recipe ]] || { echo "refine_net: no recipe $recipe" >&2; exit 2; }
# shellcheck disable=SC1090
. "$recipe"
OUT=${OUT:-runs/net}
BIN=${BIN:-target/release}
THREADS=${THREADS:-2}
NET=${NET:-engine/nets/$variant.nnue}
: "${REFINE_STEP:=1}" "${REFINE_GAMES:=12000}" "${REFINE_NODES:=2000}" "${REFINE_SELFPLAY_ARGS:=}"
: "${REFINE_SEED:=100}" "${REFINE_TRAIN_SEED:=100}" "${REFINE_LAMBDA:=1.0}" "${REFINE_EPOCHS:=40}"
: "${REFINE_TRAIN_ARGS:=}"
: "${REFINE_MATCH_GAMES:=200}" "${REFINE_MOVETIME:=25}" "${REFINE_MATCH_SEED:=100}"
for b in kage-selfplay kage-train; do
  [[ -x $BIN/$b ]] || { echo "refine_net: $BIN/$b missing (cargo build --release)" >&2; exit 2; }
done
[[ -f $NET ]] || { echo "refine_net: no net $NET" >&2; exit 2; }
run=$OUT/$variant
d=$run/refine-$REFINE_STEP
mkdir -p "$d"
log() { echo "[$(date -u +%H:%M:%S)] refine_net $variant step $REFINE_STEP: $*" >&2; }

# The net every step starts from, kept with the step (the shipped file may change later).
[[ -f $d/start.nnue ]] || { cp "$NET" "$d/start.nnue.tmp" && mv "$d/start.nnue.tmp" "$d/start.nnue"; }

if [[ ! -f $d/selfplay.done ]]; then
  log "self-play, $REFINE_GAMES games at $REFINE_NODES nodes by $NET"
  # shellcheck disable=SC2086
  "$BIN/kage-selfplay" generate --variant "$variant" --games "$REFINE_GAMES" \
    --nodes "$REFINE_NODES" --seed "$REFINE_SEED" --threads "$THREADS" --out "$d/selfplay" \
    --net "$d/start.nnue" $REFINE_SELFPLAY_ARGS
  touch "$d/selfplay.done"
fi

if [[ ! -f $d/train.done ]]; then
  data=()
  for f in $(ls -d "$run"/gen-*/selfplay/"$variant"/positions.kdata 2>/dev/null | sort -V); do data+=("$f"); done
  for ((k = 1; k <= REFINE_STEP; k++)); do data+=("$run/refine-$k/selfplay/$variant/positions.kdata"); done
  log "training on ${#data[@]} files from $NET (lambda $REFINE_LAMBDA)"
  # shellcheck disable=SC2086
  if [[ -f $d/train/checkpoint.ckpt ]]; then
    "$BIN/kage-train" --resume "$d/train" --threads "$THREADS"
  else
    "$BIN/kage-train" --variant "$variant" --data "${data[@]}" --out "$d/train" \
      --epochs "$REFINE_EPOCHS" --lambda "$REFINE_LAMBDA" --seed "$REFINE_TRAIN_SEED" \
      --threads "$THREADS" --init-net "$d/start.nnue" $REFINE_TRAIN_ARGS
  fi
  touch "$d/train.done"
fi

if [[ ! -f $d/match.done ]]; then
  log "match at $REFINE_MOVETIME ms per move, $REFINE_MATCH_GAMES games"
  rm -rf "$d/match"
  "$BIN/kage-selfplay" match --variant "$variant" --games "$REFINE_MATCH_GAMES" \
    --movetime "$REFINE_MOVETIME" --threads "$THREADS" --seed "$REFINE_MATCH_SEED" \
    --engine builtin "net=$d/train/net.nnue" name=new --engine builtin "net=$d/start.nnue" name=old \
    --out "$d/match"
  touch "$d/match.done"
fi

# shellcheck source=scripts/loop_lib.sh
. "$here/loop_lib.sh"
net_verdict refine_net "$d/match/summary.json" "$d/train/net.nnue" "$NET" "$variant"
