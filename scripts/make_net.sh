#!/usr/bin/env bash
# The net recipe of a variant, one command: the gated generation loop (scripts/loop.sh) with the
# variant's settings from scripts/recipes/<variant>.env, then the best net against the
# hand-crafted evaluation (the loop's anchor match) and, with INSTALL=1, the net copied to
# engine/nets/<variant>.nnue when the lower end of that match's 95% Elo interval is above 0.
# With POLISH=1 (a recipe setting) a last step follows the loop: a net trained from scratch
# on the positions of every generation (not only the loop's WINDOW), kept when it beats the
# best in the loop's gate match (OUT/<variant>/polish-gen-G/, step_polish in loop_lib.sh), its
# target mix POLISH_LAMBDA (a recipe setting; the loop's LAMBDA when unset), and with
# POLISH_INIT=previous trained from the best net before the last generation, not from scratch.
# Same SEED => same games and the same net, whatever THREADS is. Resumable like the loop:
# rerun the same command after an interruption.
#
#   scripts/make_net.sh minishogi              # runs/net/minishogi/best.nnue
#   INSTALL=1 scripts/make_net.sh minishogi    # ... and ship it if it beats the HCE
#   GENERATIONS=4 scripts/make_net.sh shinobi  # any loop setting overrides the recipe
#   ARCH=fsf scripts/make_net.sh minishogi     # a net in FSF's architecture (make_fsf_net.sh)
set -euo pipefail

variant=${1:?usage: scripts/make_net.sh VARIANT}
here=$(dirname "${BASH_SOURCE[0]}")
[[ ${ARCH:-small} == fsf ]] && exec "$here/make_fsf_net.sh" "$variant"
recipe=$here/recipes/$variant.env
[[ -f $recipe ]] || { echo "make_net: no recipe $recipe" >&2; exit 2; }
# The recipe sets defaults (`: "${NAME:=value}"` lines); the environment wins.
# shellcheck disable=SC1090
. "$recipe"
export GENERATIONS GAMES NODES WINDOW EPOCHS LAMBDA TRAIN_ARGS SELFPLAY_ARGS SEED POLISH POLISH_LAMBDA POLISH_INIT
export VARIANTS=$variant OUT=${OUT:-runs/net} ANCHOR=1
"$here/loop.sh"

best=$OUT/$variant/best.nnue
[[ -f $best ]] || { echo "make_net: no net beat the hand-crafted evaluation in the loop" >&2; exit 1; }
anchor=$(ls -d "$OUT/$variant"/anchor-gen-*/ 2>/dev/null | sort -V | tail -1)
if [[ ${POLISH:-0} == 1 ]]; then
  # shellcheck source=scripts/loop_lib.sh
  . "$here/loop_lib.sh"
  loop_defaults
  step_polish "$variant" "$GENERATIONS"
  # The polished net replaces the loop's best only when its gate accepted it.
  if [[ -f $OUT/$variant/polish-gen-$GENERATIONS/best.nnue ]]; then
    best=$OUT/$variant/polish-gen-$GENERATIONS/best.nnue
    anchor=$OUT/$variant/polish-gen-$GENERATIONS/anchor/
  fi
fi
summary=${anchor%/}/summary.json
[[ -f $summary ]] || { echo "make_net: no anchor match in $OUT/$variant" >&2; exit 1; }
# shellcheck source=scripts/loop_lib.sh
. "$here/loop_lib.sh"
net_verdict make_net "$summary" "$best" "the hand-crafted evaluation" "$variant"
