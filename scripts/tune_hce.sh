#!/usr/bin/env bash
# The hand-crafted evaluation's recipe: self-play with the current parameters, fit the
# parameters to the positions' search scores (`kage-train tune`, Texel-style), then judge the
# result with a match against the built-in parameters. Thin orchestration; each step resumes.
#
#   scripts/tune_hce.sh                         # all four variants, defaults below
#   VARIANTS=shinobi GAMES=4000 scripts/tune_hce.sh
#   INSTALL=1 scripts/tune_hce.sh               # copy parameters whose match interval is above 0
#                                               # into engine/variants/<variant>/hce.toml
#   SELFPLAY_EVAL=default NODES=2000 scripts/tune_hce.sh  # self-play by the shipped nets: the HCE
#       learns the nets' search scores (how engine/variants/*/hce.toml were made)
#   DATA="a.kdata b.kdata" VARIANTS=gorogoroplus scripts/tune_hce.sh  # existing positions, no self-play
#
# Layout: $OUT/data/<variant>/ (self-play), $OUT/<variant>.toml (tuned parameters),
# $OUT/match-<variant>/ (tuned against built-in: summary.json, games.pgn).
set -euo pipefail

BIN=${BIN:-target/release}
[ -x "$BIN/kage" ] || { echo "$BIN/kage missing: cargo build --release" >&2; exit 1; }
VARIANTS=${VARIANTS:-$("$BIN/kage" variants | cut -f1)}
GAMES=${GAMES:-2000}
NODES=${NODES:-4000}
SEED=${SEED:-11}
MATCH_GAMES=${MATCH_GAMES:-200}
THREADS=${THREADS:-$(nproc)}
OUT=${OUT:-runs/tune-hce}
INSTALL=${INSTALL:-0}
SELFPLAY_EVAL=${SELFPLAY_EVAL:-hce}
DATA=${DATA:-}

mkdir -p "$OUT"
for v in $VARIANTS; do
  if [ -n "$DATA" ]; then
    # shellcheck disable=SC2206
    data=($DATA)
  else
    echo "== $v: self-play ($GAMES games, $NODES nodes per move, evaluation $SELFPLAY_EVAL)"
    "$BIN/kage-selfplay" generate --variant "$v" --games "$GAMES" --nodes "$NODES" \
      --eval "$SELFPLAY_EVAL" --seed "$SEED" --threads "$THREADS" --out "$OUT/data" --quiet
    data=("$OUT/data/$v/positions.kdata")
  fi
  echo "== $v: tune"
  "$BIN/kage-train" tune --variant "$v" --data "${data[@]}" --seed "$SEED" --out "$OUT/$v.toml"
  echo "== $v: match, tuned against built-in ($MATCH_GAMES games, $NODES nodes per move)"
  "$BIN/kage-selfplay" match --variant "$v" --games "$MATCH_GAMES" --nodes "$NODES" \
    --nodes-jitter 5 --threads "$THREADS" --seed "$SEED" --quiet \
    --engine builtin "params=$OUT/$v.toml" name=tuned --engine builtin eval=hce name=builtin \
    --out "$OUT/match-$v"
  if [ "$INSTALL" = 1 ]; then
    if verdict=$("$BIN/kage-selfplay" pipeline gate "$OUT/match-$v"); then
      cp "$OUT/$v.toml" "engine/variants/$v/hce.toml"
      echo "   installed engine/variants/$v/hce.toml ($verdict)"
    else
      echo "   not installed: $verdict"
    fi
  fi
done
