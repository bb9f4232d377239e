#!/usr/bin/env bash
# The rebalance search on a real one-node Slurm cluster: a tiny Minishogi search run as job
# arrays (--emit-slurm, sbatch --wait, again until nothing is pending, then the report) must
# write the same report bytes as the same search run locally. Usage:
# .ci/rebalance_slurm_check.sh BIN_DIR WORK_DIR (Slurm from .ci/slurm_up.sh; skipped, exit 0,
# with a note where it cannot be brought up).
set -euo pipefail
bin=$(cd "$1" && pwd); work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"; cd "$work"
fail() { echo "rebalance_slurm_check: FAILED: $*" >&2; exit 1; }
cat >candidates.toml <<'TOML'
[[candidate]]
name = "reference"

[[candidate]]
name = "gote-promotes-2"
promotion_black = [1, 2]

[[candidate]]
name = "gote-first"
first = "black"
TOML
search() {
  "$bin/kage-selfplay" rebalance --base minishogi --quiet --eval hce --candidates candidates.toml \
    --games 4 --rounds 2 --levels 30,60 --audit-sample 0 --opening-plies 2 \
    --opening-mode uniform --max-plies 80 --threads 1 --seed 5 "$@"
}
search --out local >local.log 2>&1 || { tail -5 local.log; fail "local search"; }

rc=0; bash "$here/slurm_up.sh" || rc=$?
if [ "$rc" = 3 ]; then echo "rebalance_slurm_check: skipped: no Slurm here"; exit 0; fi
[ "$rc" = 0 ] || fail "slurm_up.sh exited $rc"
for round in $(seq 20); do
  search --out slurm --emit-slurm job.sh >/dev/null
  grep -q '^#SBATCH --array' job.sh || break
  sbatch --wait --output="$work/job-$round-%a.out" job.sh >/dev/null || fail "job array $round failed"
  echo "rebalance_slurm_check: job array $round: $(grep -c "^  '" job.sh) step(s)"
done
search --out slurm >slurm.log 2>&1 || { tail -5 slurm.log; fail "the report after the jobs"; }
for f in report.txt report.json; do
  cmp local/$f slurm/$f || fail "$f differs between the local and the Slurm search"
done
echo "rebalance_slurm_check: the Slurm search's report equals the local one's"
