#!/usr/bin/env bash
# Balance study: self-play of the variants named at several node budgets (with the
# hand-crafted evaluation and/or given nets) into one directory, an adjudication audit of
# each setting, then one balance report over all of it (text, JSON, HTML with charts).
# Rerunning the same command resumes: finished runs are found complete and not played again.
# Balance against strength (a ladder of rungs with Elo between them) is `kage-selfplay ladder`.
#
#   scripts/balance_study.sh                                   # defaults below
#   VARIANTS="shinobi shinobiplus" NODES="1000 4000 16000" GAMES=400 scripts/balance_study.sh
#   NETS="shinobi:nets/shinobi-g3.nnue shinobiplus:nets/shinobiplus-g3.nnue" HCE=0 scripts/balance_study.sh
#   VARIANT_FILES=engine/variants/examples/shinobiplus_rank4.toml VARIANTS=shinobiplus scripts/balance_study.sh
#
# Settings (environment):
#   VARIANTS       variants to play (default: shinobi shinobiplus)
#   NODES          node budgets per move (default: 1000 4000 16000)
#   GAMES          games per variant, budget and evaluation (default: 200)
#   HCE            1: play with the hand-crafted evaluation (default 1)
#   NETS           space-separated VARIANT:FILE pairs: also play VARIANT with each net
#   VARIANT_FILES  user variant spec files (what-ifs), played like the variants
#   OPENING_PLIES, OPENING_MULTIPV, OPENING_MARGIN  openings: the first plies sampled among the
#                  MultiPV moves within the margin (cp) of the best from the start (default 8, 4, 40)
#   NODES_JITTER   vary each search's node budget by up to this many percent (default 0)
#   AUDIT          adjudicated games played on per setting to audit adjudication (default 300: bounds a
#                  0-error rate below 1.3% at 95%; 0: no audit)
#   EXTRA          more `kage-selfplay generate` flags (e.g. "--resign-plies 8")
#   THREADS        worker threads (default: all cores)
#   SEED           run seed (default 1)
#   OUT            output directory (default balance-study)
#   BIN            where kage-selfplay is (default target/release)
#   SCREENSHOT     1: also render OUT/balance.png with headless chromium, when installed
#                  (SHOT_SIZE=W,H: the window, default 1400,2600)
set -euo pipefail
VARIANTS=${VARIANTS:-"shinobi shinobiplus"}
NODES=${NODES:-"1000 4000 16000"}
GAMES=${GAMES:-200}
HCE=${HCE:-1}
NETS=${NETS:-}
VARIANT_FILES=${VARIANT_FILES:-}
OPENING_PLIES=${OPENING_PLIES:-8}
OPENING_MULTIPV=${OPENING_MULTIPV:-4}
OPENING_MARGIN=${OPENING_MARGIN:-40}
NODES_JITTER=${NODES_JITTER:-0}
AUDIT=${AUDIT:-300}
EXTRA=${EXTRA:-}
THREADS=${THREADS:-$(nproc)}
SEED=${SEED:-1}
OUT=${OUT:-balance-study}
BIN=${BIN:-target/release}
SCREENSHOT=${SCREENSHOT:-0}
SP=$BIN/kage-selfplay
[[ -x $SP ]] || { echo "$SP missing: cargo build --release -p kage-selfplay" >&2; exit 1; }
mkdir -p "$OUT"

times=$OUT/times.tsv
[[ -f $times ]] || printf 'what\tnodes\tgames\tseconds\n' >"$times"

# play LABEL NODES ARGS...: one run into OUT/LABEL/nodes-N/<variant>.
play() {
  local label=$1 nodes=$2
  shift 2
  local start=$SECONDS
  # shellcheck disable=SC2086 # EXTRA is a list of flags
  "$SP" generate --games "$GAMES" --nodes "$nodes" --seed "$SEED" --threads "$THREADS" \
    --opening-mode multipv --opening-plies "$OPENING_PLIES" \
    --opening-multipv "$OPENING_MULTIPV" --opening-margin "$OPENING_MARGIN" \
    --nodes-jitter "$NODES_JITTER" \
    --out "$OUT/$label/nodes-$nodes" $EXTRA "$@"
  printf '%s\t%s\t%s\t%s\n' "$label $*" "$nodes" "$GAMES" "$((SECONDS - start))" >>"$times"
}

for nodes in $NODES; do
  if [[ $HCE == 1 ]]; then
    for v in $VARIANTS; do play hce "$nodes" --variant "$v" --eval hce; done
    for f in $VARIANT_FILES; do play hce "$nodes" --variant-file "$f" --eval hce; done
  fi
  for pair in $NETS; do
    v=${pair%%:*} net=${pair#*:}
    [[ $v != "$pair" && -f $net ]] || { echo "NETS entry $pair: want VARIANT:FILE" >&2; exit 1; }
    label=$(basename "$net" .nnue)
    play "$label" "$nodes" --variant "$v" --net "$net"
  done
done

audit=()
if [[ $AUDIT -gt 0 ]]; then
  "$SP" audit "$OUT" --sample "$AUDIT" --seed "$SEED" --threads "$THREADS" \
    --json "$OUT/audit.json" >"$OUT/audit.txt"
  audit=(--audit "$OUT/audit.json")
fi
"$SP" balance "$OUT" "${audit[@]}" --json "$OUT/balance.json" --html "$OUT/balance.html" \
  --svg "$OUT/score.svg" --title "kage balance study ($VARIANTS; nodes $NODES)" \
  | tee "$OUT/balance.txt"

# A picture of the report page, when chromium is installed.
if [[ $SCREENSHOT == 1 ]]; then
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [[ -z $browser ]]; then
    echo "no chromium found: apt-get install chromium for the screenshot" >&2
  else
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="${SHOT_SIZE:-1400,2600}" \
      --screenshot="$OUT/balance.png" "file://$(realpath "$OUT/balance.html")" 2>/dev/null
    echo "screenshot: $OUT/balance.png"
  fi
fi
