#!/usr/bin/env bash
# Self-play sharded with GNU parallel (one machine or several with --sshlogin), then the
# shards merged with kage-data into OUT/VARIANT/merged/{games,positions}.kdata.
# Rerunning the same command resumes every unfinished shard.
#
#   scripts/parallel_selfplay.sh                        # defaults below
#   VARIANT=shinobi SHARDS=8 JOBS=4 THREADS=2 GAMES=20000 scripts/parallel_selfplay.sh
set -euo pipefail
VARIANT=${VARIANT:-minishogi}
GAMES=${GAMES:-10000}
NODES=${NODES:-2500}
SEED=${SEED:-1}
SHARDS=${SHARDS:-4}
JOBS=${JOBS:-$SHARDS}
THREADS=${THREADS:-1}
OUT=${OUT:-data/selfplay}
BIN=${BIN:-target/release}

command -v parallel >/dev/null || { echo "GNU parallel is not installed" >&2; exit 1; }
for v in kage-selfplay kage-data; do
  [[ -x $BIN/$v ]] || { echo "$BIN/$v missing: cargo build --release" >&2; exit 1; }
done

# shellcheck disable=SC2206 # two words or none
net=(${NET:+--net "$NET"})

parallel -j "$JOBS" --halt now,fail=1 --line-buffer --tagstring 'shard {}' \
  "$BIN/kage-selfplay" generate --variant "$VARIANT" --games "$GAMES" --nodes "$NODES" \
  --seed "$SEED" --threads "$THREADS" --shard {} --shards "$SHARDS" --out "$OUT" --quiet \
  "${net[@]}" ::: $(seq 0 $((SHARDS - 1)))

games=$OUT/$VARIANT/games.kdata
if [[ $SHARDS -gt 1 ]]; then
  mkdir -p "$OUT/$VARIANT/merged"
  for kind in games positions; do
    "$BIN/kage-data" merge --out "$OUT/$VARIANT/merged/$kind.kdata" \
      "$OUT/$VARIANT"/shard-*-of-"$(printf %04d "$SHARDS")"/$kind.kdata
  done
  games=$OUT/$VARIANT/merged/games.kdata
fi
"$BIN/kage-selfplay" balance "$games" --svg "$OUT/$VARIANT/balance.svg"
