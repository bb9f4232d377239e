# shellcheck shell=bash
# The steps of the gated generation loop, shared by scripts/loop.sh (one machine, in order) and
# scripts/slurm_loop.sh (one Slurm job per step). Sourced, not run. Every step is idempotent:
# it returns at once when its marker exists, writes its outputs atomically (temp file + rename,
# or the tool's own resumable directory) and leaves its marker last, so a killed, requeued or
# rerun step continues where it stopped.
#
# Layout of OUT/<variant>/: settings.sh (the settings of the run), gen-0/best.txt ("hce" or
# gen-0/net.nnue), and per generation G >= 1:
#   gen-G/selfplay/<variant>/{games,positions}.kdata   self-play by the best player of G-1
#         (sharded: .../shard-IIII-of-NNNN/ merged into the same two files)
#   gen-G/selfplay.done  gen-G/window.txt  gen-G/train/ (a kage-train run dir)  gen-G/train.done
#   gen-G/match/ (kage-selfplay match dir)  gen-G/match.done  gen-G/gate.txt  gen-G/best.txt
#   gen-G/times.tsv (seconds per step)
# summary.tsv, summary.md and elo.svg (scripts/loop_report.py) and best.nnue at the top;
# polish-gen-G/ when scripts/make_net.sh runs the optional polish step (step_polish).

# Defaults of every setting (environment overrides). See scripts/loop.sh for their meaning.
loop_defaults() {
  VARIANTS=${VARIANTS:-minishogi}
  GENERATIONS=${GENERATIONS:-3}
  GAMES=${GAMES:-8000}
  NODES=${NODES:-2000}
  WINDOW=${WINDOW:-3}
  EPOCHS=${EPOCHS:-40}
  LAMBDA=${LAMBDA:-0.75}
  MATCH_GAMES=${MATCH_GAMES:-400}
  MATCH_NODES=${MATCH_NODES:-4000}
  ELO0=${ELO0:-0}
  ELO1=${ELO1:-10}
  SEED=${SEED:-1}
  THREADS=${THREADS:-$(nproc)}
  OUT=${OUT:-runs/loop}
  BIN=${BIN:-target/release}
  NET=${NET:-}
  TRAIN_ARGS=${TRAIN_ARGS:-}
  SELFPLAY_ARGS=${SELFPLAY_ARGS:-}
  MATCH_ARGS=${MATCH_ARGS-"--nodes-jitter 5"}
  ANCHOR=${ANCHOR:-1}
  LOOP_DIR=${LOOP_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
  PYTHON=${PYTHON:-python3}
  if [[ $VARIANTS == all ]]; then VARIANTS="shinobiplus shinobi gorogoroplus minishogi"; fi
  # shellcheck disable=SC2034 # used by the scripts that source this file
  read -r -a LOOP_VARIANTS <<<"${VARIANTS//,/ }"
}

# The settings that decide a run's results (not GENERATIONS, THREADS or paths of binaries),
# as shell assignments.
loop_settings() {
  local v=$1 net0=$NET var
  if [[ -z $net0 ]]; then
    var=NET_$v
    net0=${!var:-}
  fi
  local k
  printf 'VARIANT=%q\nNET0=%q\n' "$v" "$net0"
  for k in GAMES NODES WINDOW EPOCHS LAMBDA MATCH_GAMES MATCH_NODES ELO0 ELO1 SEED \
    TRAIN_ARGS SELFPLAY_ARGS MATCH_ARGS; do
    printf '%s=%q\n' "$k" "${!k}"
  done
}

loop_log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# loop_write FILE TEXT: atomic (temp file + rename).
loop_write() { printf '%s\n' "$2" >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"; }

# loop_copy SRC DST: atomic copy.
loop_copy() { cp "$1" "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2"; }

# loop_timed GEN_DIR STEP CMD...: runs CMD, appends STEP and its seconds to GEN_DIR/times.tsv.
loop_timed() {
  local dir=$1 step=$2 t0=$SECONDS
  shift 2
  "$@"
  printf '%s\t%s\n' "$step" $((SECONDS - t0)) >>"$dir/times.tsv"
}

loop_report() { "$PYTHON" "$LOOP_DIR/loop_report.py" "$@"; }

# step_init V: records the settings (refusing a rerun with other ones) and generation 0.
step_init() {
  local v=$1 vdir=$OUT/$1 settings
  settings=$(loop_settings "$v")
  mkdir -p "$vdir/gen-0"
  if [[ -f $vdir/settings.sh ]]; then
    if [[ $(cat "$vdir/settings.sh") != "$settings" ]]; then
      echo "loop: $vdir was started with other settings (< then, > now):" >&2
      diff "$vdir/settings.sh" <(echo "$settings") >&2 || true
      echo "loop: rerun with those settings, or use another OUT" >&2
      return 1
    fi
  else
    loop_write "$vdir/settings.sh" "$settings"
  fi
  if [[ ! -f $vdir/gen-0/best.txt ]]; then
    local net0
    # shellcheck disable=SC1091
    net0=$(. "$vdir/settings.sh" && echo "$NET0")
    if [[ -n $net0 ]]; then
      loop_copy "$net0" "$vdir/gen-0/net.nnue"
      loop_write "$vdir/gen-0/best.txt" "gen-0/net.nnue"
    else
      loop_write "$vdir/gen-0/best.txt" "hce"
    fi
  fi
}

# loop_load V: the run's recorded settings (what every later step uses).
loop_load() {
  local vdir=$OUT/$1
  [[ -f $vdir/settings.sh ]] || { echo "loop: $vdir/settings.sh missing (run the init step)" >&2; return 1; }
  # shellcheck disable=SC1091
  . "$vdir/settings.sh"
}

# loop_best V G: the best player after generation G ("hce" or a path under OUT/V).
loop_best() {
  local f=$OUT/$1/gen-$2/best.txt
  [[ -f $f ]] || { echo "loop: $f missing: generation $2 is not finished" >&2; return 1; }
  cat "$f"
}

# loop_name BEST: a short player name (hce, gen-0, gen-3, ...).
loop_name() { if [[ $1 == hce ]]; then echo hce; else echo "${1%%/*}"; fi; }

# step_selfplay V G [SHARD SHARDS]: self-play of generation G by the best player of G-1.
step_selfplay() {
  local v=$1 g=$2 shard=${3:-} shards=${4:-}
  local d=$OUT/$v/gen-$g marker best
  marker=$d/selfplay.done
  [[ -n $shard ]] && marker=$d/selfplay-shard-$shard.done
  [[ -f $d/selfplay.done || -f $marker ]] && return 0
  loop_load "$v"
  best=$(loop_best "$v" $((g - 1)))
  mkdir -p "$d"
  local args=(generate --variant "$v" --games "$GAMES" --nodes "$NODES" --seed $((SEED + g))
    --threads "$THREADS" --out "$d/selfplay")
  if [[ $best != hce ]]; then args+=(--net "$OUT/$v/$best"); else args+=(--eval hce); fi
  [[ -n $shard ]] && args+=(--shard "$shard" --shards "$shards")
  # shellcheck disable=SC2206
  args+=($SELFPLAY_ARGS)
  loop_log "$v gen $g: self-play${shard:+ shard $shard/$shards}, $GAMES games at $NODES nodes by $(loop_name "$best")"
  loop_timed "$d" "selfplay${shard:+-$shard}" "$BIN/kage-selfplay" "${args[@]}"
  touch "$marker"
}

# step_merge V G SHARDS: joins the SHARDS shards of generation G's self-play (all must be there).
step_merge() {
  local v=$1 g=$2 n=$3 d=$OUT/$1/gen-$2 kind
  [[ -f $d/selfplay.done ]] && return 0
  local sp=$d/selfplay/$v
  if ((n > 1)); then
    for kind in games positions; do
      local shards=() i
      for ((i = 0; i < n; i++)); do
        shards+=("$(printf '%s/shard-%04d-of-%04d/%s.kdata' "$sp" "$i" "$n" "$kind")")
        [[ -f $d/selfplay-shard-$i.done ]] || { echo "loop: shard $i of $d is not done" >&2; return 1; }
      done
      loop_log "$v gen $g: merging $n shards of $kind"
      rm -f "$sp/$kind.kdata.merge"
      loop_timed "$d" "merge-$kind" "$BIN/kage-data" merge --out "$sp/$kind.kdata.merge" "${shards[@]}"
      mv -f "$sp/$kind.kdata.merge" "$sp/$kind.kdata"
    done
  fi
  [[ -f $sp/positions.kdata ]] || { echo "loop: $sp/positions.kdata missing" >&2; return 1; }
  touch "$d/selfplay.done"
}

# step_train V G: a net on the positions of generations G-WINDOW+1..G, from the best net of G-1.
step_train() {
  local v=$1 g=$2 d=$OUT/$1/gen-$2
  [[ -f $d/train.done ]] && return 0
  loop_load "$v"
  [[ -f $d/selfplay.done ]] || { echo "loop: $d/selfplay.done missing" >&2; return 1; }
  local first=$((g - WINDOW + 1)) data=() k best
  ((first >= 1)) || first=1
  for ((k = first; k <= g; k++)); do data+=("$OUT/$v/gen-$k/selfplay/$v/positions.kdata"); done
  loop_write "$d/window.txt" "gen $first-$g"
  best=$(loop_best "$v" $((g - 1)))
  loop_log "$v gen $g: training on generations $first-$g from $(loop_name "$best")"
  loop_train_net "$d" "$v" "$best" $((SEED + g)) "${data[@]}"
}

# loop_train_net DIR V BEST SEED DATA...: kage-train into DIR/train on the DATA files, from the
# player BEST when it is a net (BEST "hce": from scratch; resumed from its checkpoint after an
# interruption), then DIR/train.done.
loop_train_net() {
  local d=$1 v=$2 best=$3 seed=$4
  shift 4
  if [[ -f $d/train/checkpoint.ckpt ]]; then
    loop_timed "$d" train "$BIN/kage-train" --resume "$d/train" --threads "$THREADS"
  else
    local args=(--variant "$v" --data "$@" --out "$d/train" --epochs "$EPOCHS"
      --lambda "$LAMBDA" --seed "$seed" --threads "$THREADS")
    [[ $best != hce ]] && args+=(--init-net "$OUT/$v/$best")
    # shellcheck disable=SC2206
    args+=($TRAIN_ARGS)
    loop_timed "$d" train "$BIN/kage-train" "${args[@]}"
  fi
  [[ -f $d/train/net.nnue ]] || { echo "loop: kage-train wrote no $d/train/net.nnue" >&2; return 1; }
  touch "$d/train.done"
}

# loop_match DIR V NET NAME OPPONENT SEED [OPTION...]: the net NET (called NAME) against the
# player OPPONENT ("hce" or a path under OUT/V), MATCH_GAMES games at MATCH_NODES nodes per
# move with MATCH_ARGS and the OPTIONs, in the match directory DIR. An interrupted match has
# no verdict: it is refused here, and a rerun resumes it.
loop_match() {
  local d=$1 v=$2 net=$3 name=$4 opponent=$5 seed=$6
  shift 6
  local spec=(builtin eval=hce "name=$(loop_name "$opponent")")
  [[ $opponent != hce ]] && spec=(builtin "net=$OUT/$v/$opponent" "name=$(loop_name "$opponent")")
  # shellcheck disable=SC2206
  local extra=($MATCH_ARGS)
  "$BIN/kage-selfplay" match --variant "$v" --engine builtin "net=$net" "name=$name" \
    --engine "${spec[@]}" --games "$MATCH_GAMES" --nodes "$MATCH_NODES" --threads "$THREADS" \
    --seed "$seed" "$@" --out "$d" "${extra[@]}"
  loop_report gate "$d" >/dev/null
}

# step_gate V G: the new net against the best of G-1 (GSPRT), the verdict, the new best and
# the summary.
step_gate() {
  local v=$1 g=$2 d=$OUT/$1/gen-$2 vdir=$OUT/$1
  loop_load "$v"
  local best
  best=$(loop_best "$v" $((g - 1)))
  if [[ ! -f $d/match.done ]]; then
    [[ -f $d/train.done ]] || { echo "loop: $d/train.done missing" >&2; return 1; }
    loop_log "$v gen $g: match gen-$g against $(loop_name "$best") (GSPRT [$ELO0, $ELO1], at most $MATCH_GAMES games)"
    loop_timed "$d" match loop_match "$d/match" "$v" "$d/train/net.nnue" "gen-$g" "$best" \
      $((SEED + g)) --sprt --elo0 "$ELO0" --elo1 "$ELO1"
    touch "$d/match.done"
  fi
  [[ -f $d/gate.txt ]] || loop_write "$d/gate.txt" "$(loop_report gate "$d/match")"
  if [[ ! -f $d/best.txt ]]; then
    if [[ $(cut -f1 "$d/gate.txt") == accepted ]]; then
      loop_copy "$d/train/net.nnue" "$vdir/best.nnue"
      loop_write "$d/best.txt" "gen-$g/train/net.nnue"
    else
      loop_write "$d/best.txt" "$best"
    fi
  fi
  loop_log "$v gen $g: $(tr '\t' ' ' <"$d/gate.txt"); best: $(cat "$d/best.txt")"
  loop_report report "$vdir" >/dev/null
}

# step_anchor V G: the best net after generation G against generation 0 (no GSPRT, MATCH_GAMES
# games), in OUT/V/anchor-gen-K for the best net's generation K: a direct measurement beside
# the summed gains of the chart. Nothing to do while generation 0 is still the best.
step_anchor() {
  local v=$1 g=$2 vdir=$OUT/$1
  loop_load "$v"
  local best start
  best=$(loop_best "$v" "$g")
  start=$(loop_best "$v" 0)
  [[ $best == "$start" ]] && return 0
  local name d
  name=$(loop_name "$best")
  d=$vdir/anchor-$name
  if [[ ! -f $d.done ]]; then
    loop_log "$v: anchor match $name against $(loop_name "$start") ($MATCH_GAMES games)"
    loop_match "$d" "$v" "$vdir/$best" "$name" "$start" $((SEED + 1000 + g))
    touch "$d.done"
  fi
  loop_report report "$vdir" >/dev/null
}

# step_polish V G: after generation G, a net trained from scratch (no starting net) on the
# positions of every generation 1..G (not only the last WINDOW), in OUT/V/polish-gen-G/: train/ (seed
# SEED+G, the last generation's; lambda POLISH_LAMBDA, by default the loop's LAMBDA; from the best
# net before generation G instead of from scratch when POLISH_INIT=previous), match/ against the best (the gate's settings, seed
# SEED+G+1), gate.txt, and when accepted best.nnue and anchor/ (against generation 0, seed
# SEED+1001+G).
step_polish() {
  local v=$1 g=$2 d=$OUT/$1/polish-gen-$2
  loop_load "$v"
  local best data=() k
  best=$(loop_best "$v" "$g")
  [[ $best == hce ]] && { loop_log "$v: polish skipped: no net beat generation 0"; return 0; }
  mkdir -p "$d"
  if [[ ! -f $d/train.done ]]; then
    for ((k = 1; k <= g; k++)); do data+=("$OUT/$v/gen-$k/selfplay/$v/positions.kdata"); done
    local lambda=${POLISH_LAMBDA:-$LAMBDA} init=hce
    # POLISH_INIT=previous: from the best net before generation G (as generation G's own
    # training started), instead of from scratch.
    [[ ${POLISH_INIT:-scratch} == previous ]] && init=$(loop_best "$v" $((g - 1)))
    local from=scratch
    [[ $init != hce ]] && from=$(loop_name "$init")
    loop_log "$v: polish: training on generations 1-$g from $from (lambda $lambda)"
    LAMBDA=$lambda loop_train_net "$d" "$v" "$init" $((SEED + g)) "${data[@]}"
  fi
  if [[ ! -f $d/match.done ]]; then
    loop_log "$v: polish: match against $(loop_name "$best") (GSPRT [$ELO0, $ELO1], at most $MATCH_GAMES games)"
    loop_timed "$d" match loop_match "$d/match" "$v" "$d/train/net.nnue" polish "$best" \
      $((SEED + g + 1)) --sprt --elo0 "$ELO0" --elo1 "$ELO1"
    touch "$d/match.done"
  fi
  [[ -f $d/gate.txt ]] || loop_write "$d/gate.txt" "$(loop_report gate "$d/match")"
  loop_log "$v: polish: $(tr '\t' ' ' <"$d/gate.txt")"
  [[ $(cut -f1 "$d/gate.txt") == accepted ]] || return 0
  [[ -f $d/best.nnue ]] || loop_copy "$d/train/net.nnue" "$d/best.nnue"
  if [[ ! -f $d/anchor.done ]]; then
    local start
    start=$(loop_best "$v" 0)
    loop_log "$v: anchor match polish against $(loop_name "$start") ($MATCH_GAMES games)"
    loop_match "$d/anchor" "$v" "$d/best.nnue" polish "$start" $((SEED + 1001 + g))
    touch "$d/anchor.done"
  fi
}

# net_verdict WHO SUMMARY NET OPPONENT VARIANT: prints the Elo of NET against OPPONENT from the
# match's SUMMARY (summary.json) and, with INSTALL=1, copies NET to engine/nets/VARIANT.nnue
# when the lower end of the 95% interval is above 0 (make_net.sh, refine_net.sh).
net_verdict() {
  local who=$1 summary=$2 net=$3 opponent=$4 variant=$5 elo half games
  read -r elo half games < <(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['elo']; \
print(e['elo'], e['elo95'], e['games'])" "$summary")
  echo "$who: $net against $opponent: Elo $elo +/- $half ($games games)"
  [[ ${INSTALL:-0} == 1 ]] || return 0
  if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) - float(sys.argv[2]) > 0 else 1)" "$elo" "$half"; then
    cp "$net" "engine/nets/$variant.nnue"
    echo "$who: installed engine/nets/$variant.nnue (rebuild to embed it)"
  else
    echo "$who: not installed: the interval does not exclude 0"
  fi
}
