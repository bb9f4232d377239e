#!/usr/bin/env bash
# A net in Fairy-Stockfish's own architecture and file format (kage-train --arch fsf) from
# kage's own self-play, one command, every step resumable: rerun the same command after an
# interruption and it goes on where it stopped. Settings: scripts/recipes/<variant>.fsf.env
# (the environment wins). Same settings => same games and the same net, whatever THREADS is.
#
#   scripts/make_fsf_net.sh minishogi            # runs/fsf-net/minishogi/train/minishogi-<sha12>.nnue
#   FSF=/path/to/stockfish [FSF_VARIANTS=.../variants.ini] scripts/make_fsf_net.sh V  # + FSF loads it
# 1. self-play: FSF_GAMES games at FSF_NODES nodes per move (FSF_JITTER % node jitter) by the
#    shipped net (or FSF_SELFPLAY_NET: a last generation's net), into OUT/V/selfplay (resumed);
# 2. with FSF_SHUFFLE=1: the positions shuffled once (seed FSF_SEED) into OUT/V/shuffled;
# 3. training: kage-train --arch fsf for FSF_EPOCHS epochs into OUT/V/train (resumed from its
#    checkpoint), which writes <variant>-<12 hex digits of sha256>.nnue; with FSF_SCORE_WDL set
#    (the shipped net's fitted WDL file), targets through that model (kage-train --score-wdl);
#    FSF_SCORE_WDL=fit: fitted on this run's positions for their player (OUT/V/wdl.toml; it
#    models this run's scores only, so FSF_PREV_DATA by another player does not go with it);
#    FSF_PREV_DATA: earlier generations' position files, read before this one's (oldest first);
# 4. with FSF set: FSF loads the net (`info string NNUE evaluation using ... enabled`).
set -euo pipefail

variant=${1:?usage: scripts/make_fsf_net.sh VARIANT}
here=$(dirname "${BASH_SOURCE[0]}")
recipe=$here/recipes/$variant.fsf.env
[[ -f $recipe ]] || { echo "make_fsf_net: no recipe $recipe" >&2; exit 2; }
# shellcheck disable=SC1090
. "$recipe"
BIN=${BIN:-target/release} OUT=${OUT:-runs/fsf-net} THREADS=${THREADS:-0}
d=$OUT/$variant
mkdir -p "$d"
log() { echo "make_fsf_net $variant: $*" >&2; }

log "self-play, $FSF_GAMES games at $FSF_NODES nodes (+/- $FSF_JITTER %), seed $FSF_SEED"
threads=()
((THREADS > 0)) && threads=(--threads "$THREADS")
"$BIN/kage-selfplay" generate --variant "$variant" --games "$FSF_GAMES" --nodes "$FSF_NODES" \
  --nodes-jitter "$FSF_JITTER" --seed "$FSF_SEED" --out "$d/selfplay" --progress-secs 60 \
  "${threads[@]}" ${FSF_SELFPLAY_NET:+--net "$FSF_SELFPLAY_NET"}

data=$d/selfplay/$variant/positions.kdata shuf=$d/shuffled/positions.kdata
if [[ ${FSF_SHUFFLE:-0} == 1 ]]; then
  [[ -f $shuf ]] || { mkdir -p "${shuf%/*}" && "$BIN/kage-data" shuffle --seed "$FSF_SEED" --out "$shuf" "$data"; }
  data=$shuf
fi

net() { find "$d/train" -maxdepth 1 -name "$variant-*.nnue" 2>/dev/null | head -1; }
# The run directory's net is written once, after the last epoch: its presence means done.
if [[ -n $(net) ]]; then
  log "training done before"
elif [[ -f $d/train/checkpoint.ckpt ]]; then
  log "training, resumed from $d/train"
  "$BIN/kage-train" --resume "$d/train" --threads "$THREADS"
else
  log "training, $FSF_EPOCHS epochs (lambda $FSF_LAMBDA, seed $FSF_TRAIN_SEED)"
  wdl=()
  if [[ ${FSF_SCORE_WDL:-} == fit ]]; then
    FSF_SCORE_WDL=$d/wdl.toml
    [[ -f $FSF_SCORE_WDL ]] || "$BIN/kage-data" fit-wdl --by ply --out "$FSF_SCORE_WDL" \
      --net "${FSF_SELFPLAY_NET:-$here/../engine/nets/$variant.nnue}" "$d/selfplay/$variant/positions.kdata" >/dev/null
  fi
  [[ -n ${FSF_SCORE_WDL:-} ]] && wdl=(--score-wdl "$FSF_SCORE_WDL")
  # shellcheck disable=SC2086
  "$BIN/kage-train" --variant "$variant" --arch fsf --data ${FSF_PREV_DATA:-} "$data" \
    --out "$d/train" --epochs "$FSF_EPOCHS" --lambda "$FSF_LAMBDA" --seed "$FSF_TRAIN_SEED" \
    --threads "$THREADS" "${wdl[@]}" $FSF_TRAIN_ARGS
fi
file=$(net)
[[ -n $file ]] || { echo "make_fsf_net: kage-train wrote no $variant-*.nnue in $d/train" >&2; exit 1; }
log "net $file ($(stat -c %s "$file") bytes)"

if [[ -n ${FSF:-} ]]; then
  vpath=${FSF_VARIANTS:+setoption name VariantPath value $FSF_VARIANTS}
  said=$(printf 'uci\n%s\nsetoption name UCI_Variant value %s\nsetoption name EvalFile value %s\nisready\ngo depth 1\nquit\n' \
    "$vpath" "$variant" "$(realpath "$file")" | "$FSF" 2>&1 | grep -m1 'NNUE evaluation using' || true)
  [[ $said == *enabled* ]] || { echo "make_fsf_net: FSF did not load $file: ${said:-no word}" >&2; exit 1; }
  log "FSF: $said"
fi
