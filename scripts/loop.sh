#!/usr/bin/env bash
# Generation loop: self-play with the current net -> kage-train on its positions -> the new
# net plays the next generation. Thin orchestration around the two binaries; every step is
# resumable, so rerunning the same command continues where it stopped.
#
#   scripts/loop.sh                                   # defaults below
#   VARIANT=shinobi GENERATIONS=5 GAMES=2000 NODES=5000 EPOCHS=10 scripts/loop.sh
#   NET=runs/old/net.nnue scripts/loop.sh             # start from an existing network
#
# Layout: $OUT/gen-N/selfplay/$VARIANT/{games,positions}.kdata, $OUT/gen-N/train/net.nnue,
# $OUT/gen-N/balance.{txt,svg}. Generation N uses seed SEED+N, so each generation's games
# are new, and the net of generation N-1 (generation 0: NET, or the hand-crafted eval).
set -euo pipefail

VARIANT=${VARIANT:-minishogi}
GENERATIONS=${GENERATIONS:-3}
GAMES=${GAMES:-200}
NODES=${NODES:-2500}
SEED=${SEED:-1}
EPOCHS=${EPOCHS:-5}
THREADS=${THREADS:-$(nproc)}
OUT=${OUT:-runs/loop-$VARIANT}
BIN=${BIN:-target/release}
NET=${NET:-}
# TRAIN_ARGS: further kage-train options, e.g. TRAIN_ARGS="--lambda 0.7 --ft-size 64".
TRAIN_ARGS=${TRAIN_ARGS:-}

SELFPLAY=${SELFPLAY:-$BIN/kage-selfplay}
TRAIN=${TRAIN:-$BIN/kage-train}
for b in "$SELFPLAY" "$TRAIN"; do
  [[ -x $b ]] || { echo "$b missing: cargo build --release (or set SELFPLAY / TRAIN)" >&2; exit 1; }
done

net=$NET
for ((g = 0; g < GENERATIONS; g++)); do
  dir=$OUT/gen-$g
  mkdir -p "$dir"
  echo "== generation $g: self-play ($VARIANT, $GAMES games, $NODES nodes, net: ${net:-hand-crafted})"
  netarg=()
  if [[ -n $net ]]; then netarg=(--net "$net"); fi
  "$SELFPLAY" generate --variant "$VARIANT" --games "$GAMES" --nodes "$NODES" \
    --seed $((SEED + g)) --threads "$THREADS" --out "$dir/selfplay" --quiet "${netarg[@]}"
  "$SELFPLAY" balance "$dir/selfplay/$VARIANT/games.kdata" \
    --svg "$dir/balance.svg" >"$dir/balance.txt"

  echo "== generation $g: training"
  # shellcheck disable=SC2086
  if [[ -f $dir/train/.done ]]; then
    echo "already trained"
  elif [[ -f $dir/train/checkpoint.ckpt ]]; then
    "$TRAIN" --resume "$dir/train" --epochs "$EPOCHS" --quiet
  else
    "$TRAIN" --variant "$VARIANT" --data "$dir/selfplay/$VARIANT/positions.kdata" \
      --out "$dir/train" --epochs "$EPOCHS" --threads "$THREADS" --quiet $TRAIN_ARGS
  fi
  [[ -f $dir/train/net.nnue ]] || { echo "kage-train wrote no $dir/train/net.nnue" >&2; exit 1; }
  touch "$dir/train/.done"
  net=$dir/train/net.nnue
done
echo "final network: $net"
