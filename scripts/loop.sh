#!/usr/bin/env bash
# The gated generation loop on one machine (scripts/slurm_loop.sh: the same on Slurm).
# Per variant, generation 0 is the hand-crafted evaluation (HCE) or NET; each generation G >= 1
#   1. plays GAMES self-play games with the best player so far,
#   2. trains a net on the positions of the last WINDOW generations (G-WINDOW+1 .. G), starting
#      from the best net (kage-train --init-net) unless the best is still the HCE,
#   3. plays the new net against the best (kage-selfplay match --sprt: GSPRT with elo0 ELO0,
#      elo1 ELO1, at most MATCH_GAMES games in pairs with sides swapped) and keeps it only if it
#      passes: the GSPRT accepts H1, or it reaches MATCH_GAMES without a decision and the lower
#      end of the 95% Elo interval (Elo - half width) is above 0.
# After each generation OUT/<variant>/summary.{tsv,md} and elo.svg are rewritten (a row per
# generation: self-play positions, training window and loss, match W/D/L, Elo +/- 95%, GSPRT,
# accepted, minutes); an accepted net is also copied to OUT/<variant>/best.nnue. At the end
# (ANCHOR=1) the best net plays generation 0 directly (MATCH_GAMES games, no GSPRT), a check
# on the chart's summed gains, which need not add up (Elo is not transitive).
#
#   scripts/loop.sh                                   # small default: minishogi, ~20 min, 2 cores
#   VARIANTS=all GENERATIONS=6 GAMES=20000 scripts/loop.sh        # all four, larger
#   VARIANTS=shinobi NET=engine/nets/shinobi.nnue scripts/loop.sh  # generation 0 is a net
#
# Resumable: every step leaves a marker (gen-G/selfplay.done, train.done, match.done, gate.txt,
# best.txt; scripts/loop_lib.sh has the layout) and each tool resumes its own half-done work
# (self-play batches, the trainer's checkpoint, the match log): rerunning the same command
# continues where it stopped, and a larger GENERATIONS extends a finished run. The settings
# other than GENERATIONS, THREADS and BIN are recorded in OUT/<variant>/settings.sh; a rerun with
# others is refused (use another OUT).
#
# Settings (environment), defaults in brackets:
#   VARIANTS [minishogi]  names (space/comma separated) or "all"
#   GENERATIONS [3]  GAMES [8000] self-play games per generation  NODES [2000] per move
#   WINDOW [3] generations of positions per training  EPOCHS [40]  LAMBDA [0.75]
#   MATCH_GAMES [400]  MATCH_NODES [4000]  ELO0 [0]  ELO1 [10]  SEED [1] (generation G: SEED+G)
#   THREADS [all cores]  OUT [runs/loop]  BIN [target/release] (cargo build --release first,
#   a no-op when up to date; BUILD=0 skips it)
#   NET [none] generation 0 net for one variant, or NET_<variant>=FILE per variant
#   TRAIN_ARGS, SELFPLAY_ARGS, MATCH_ARGS [--nodes-jitter 5]: more options of each tool
#   ANCHOR [1]: 0 skips the final match of the best net against generation 0
# The small default is sized for a 2-core machine: 8000 games give 350k-500k positions per
# generation (HCE self-play ~1800 positions/s per thread at 2000 nodes, the nets' somewhat
# slower), 40 epochs of training take under a minute, a gating match 1-2 minutes. Measured on
# this machine while other jobs loaded it (load 5-9 on 2 cores, at nice 19): generations of
# 7.6, 11.2 and 12.2 minutes plus the anchor match, about 33 minutes in all (on idle cores
# it should take about half that, not measured). Generation 1 beat the HCE by +121 +/- 37
# Elo, generation 2 beat generation 1 by +102 +/- 35, generation 3 was rejected (-24 +/- 30);
# generation 2 against the HCE directly: +171 +/- 35 (400 games at 4000 nodes). The four
# variants take about four times as long (the larger boards more): VARIANTS=all.
set -euo pipefail

# shellcheck source=scripts/loop_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/loop_lib.sh"
loop_defaults

# The default BIN is (re)built from this checkout (a no-op when up to date; BUILD=0 skips it).
if [[ $BIN == target/release && ${BUILD:-1} != 0 ]]; then
  loop_log "cargo build --release -p kage-selfplay -p kage-train"
  cargo build --release --quiet -p kage-selfplay -p kage-train
fi
if [[ ! -x $BIN/kage-selfplay || ! -x $BIN/kage-train ]]; then
  echo "loop: $BIN/kage-selfplay or $BIN/kage-train missing" >&2
  exit 1
fi
if [[ -n $NET && ${#LOOP_VARIANTS[@]} -ne 1 ]]; then
  echo "loop: NET is for one variant; with several, set NET_<variant>=FILE" >&2
  exit 1
fi

for v in "${LOOP_VARIANTS[@]}"; do
  step_init "$v"
  for ((g = 1; g <= GENERATIONS; g++)); do
    step_selfplay "$v" "$g"
    step_train "$v" "$g"
    step_gate "$v" "$g"
  done
  if ((ANCHOR && GENERATIONS > 0)); then step_anchor "$v" "$GENERATIONS"; fi
  loop_report report "$OUT/$v"
done
