#!/usr/bin/env bash
# The net recipe of a variant: self-play with the hand-crafted evaluation (HCE), train a net
# on it, then (GENERATIONS > 1) self-play with that net and train the next one on every
# generation's positions so far; each net is judged against the HCE in a match at equal nodes.
# Training settings are data: trainer/recipes/<variant>.toml (kage-train --config).
# Every step resumes; same SEED => same games and same net, whatever THREADS is.
#
#   scripts/make_net.sh minishogi                 # one variant, the defaults below
#   GAMES=20000 GENERATIONS=2 scripts/make_net.sh shinobi
#   INSTALL=1 scripts/make_net.sh minishogi       # copy the final net to engine/nets/ if its
#                                                 # match interval against the HCE is above 0
#
# Layout: $OUT/gen-N/data/<variant>/positions.kdata, $OUT/gen-N/train/net.nnue,
# $OUT/gen-N/match/summary.json, $OUT/summary.md (one line per generation).
set -euo pipefail

VARIANT=${1:-${VARIANT:-minishogi}}
RECIPE=${RECIPE:-trainer/recipes/$VARIANT.toml}
GAMES=${GAMES:-}
NODES=${NODES:-2000}
GENERATIONS=${GENERATIONS:-1}
SEED=${SEED:-1}
MATCH_GAMES=${MATCH_GAMES:-400}
MATCH_NODES=${MATCH_NODES:-4000}
THREADS=${THREADS:-$(nproc)}
OUT=${OUT:-runs/net-$VARIANT}
BIN=${BIN:-target/release}
INSTALL=${INSTALL:-0}
# Extra data files to train on besides this run's (e.g. an earlier run's positions).
EXTRA_DATA=${EXTRA_DATA:-}

[[ -f $RECIPE ]] || { echo "no recipe $RECIPE" >&2; exit 2; }
if [[ -z $GAMES ]]; then
  # About the same number of positions per variant: Shinobi games are three times longer.
  case $VARIANT in
    shinobi | shinobiplus) GAMES=8000 ;;
    *) GAMES=24000 ;;
  esac
fi
if [[ ! -x $BIN/kage-selfplay || ! -x $BIN/kage-train ]]; then
  cargo build --release -p kage-selfplay -p kage-train
fi
mkdir -p "$OUT"
summary=$OUT/summary.md
printf '| generation | self-play | positions files | match against HCE (%s nodes) |\n|---|---|---|---|\n' \
  "$MATCH_NODES" >"$summary"

data=()
# shellcheck disable=SC2206
[[ -n $EXTRA_DATA ]] && data=($EXTRA_DATA)
net=
for ((g = 0; g < GENERATIONS; g++)); do
  dir=$OUT/gen-$g
  mkdir -p "$dir"
  if [[ -n $net ]]; then player=(--net "$net"); who="net of generation $((g - 1))"; else
    player=(--eval hce); who="HCE"; fi
  echo "== $VARIANT generation $g: self-play by the $who ($GAMES games, $NODES nodes per move)"
  "$BIN/kage-selfplay" generate --variant "$VARIANT" --games "$GAMES" --nodes "$NODES" \
    --seed $((SEED * 1000 + g)) --threads "$THREADS" --out "$dir/data" --quiet "${player[@]}" \
    >"$dir/selfplay.log"
  data+=("$dir/data/$VARIANT/positions.kdata")

  echo "== $VARIANT generation $g: training on ${#data[@]} generation(s) of positions"
  if [[ ! -f $dir/train/.done ]]; then
    if [[ -f $dir/train/checkpoint.ckpt ]]; then
      "$BIN/kage-train" --resume "$dir/train" --quiet
    else
      "$BIN/kage-train" --config "$RECIPE" --variant "$VARIANT" --data "${data[@]}" \
        --seed "$SEED" --threads "$THREADS" --out "$dir/train" --quiet
    fi
    touch "$dir/train/.done"
  fi
  net=$dir/train/net.nnue

  echo "== $VARIANT generation $g: the net against the HCE ($MATCH_GAMES games)"
  "$BIN/kage-selfplay" match --variant "$VARIANT" --games "$MATCH_GAMES" --nodes "$MATCH_NODES" \
    --nodes-jitter 5 --threads "$THREADS" --seed "$SEED" --quiet \
    --engine builtin "net=$net" name=net --engine builtin eval=hce name=hce \
    --out "$dir/match" >/dev/null
  result=$(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['elo']; \
print(f\"{e['score']:.3f} score, Elo {e['elo']:+.0f} +/- {e['elo95']:.0f} ({e['games']} games)\")" \
    "$dir/match/summary.json")
  echo "   $result"
  printf '| %d | %s, %d games | %d | %s |\n' "$g" "$who" "$GAMES" "${#data[@]}" "$result" >>"$summary"
done

cp "$net" "$OUT/net.nnue"
echo "final network: $OUT/net.nnue"
if [[ $INSTALL == 1 ]]; then
  lower=$(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['elo']; print(e['elo']-e['elo95'])" \
    "$OUT/gen-$((GENERATIONS - 1))/match/summary.json")
  if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "$lower"; then
    cp "$net" "engine/nets/$VARIANT.nnue"
    echo "installed engine/nets/$VARIANT.nnue (Elo lower bound $lower)"
  else
    echo "not installed: the match does not show a gain over the HCE (Elo lower bound $lower)"
  fi
fi
