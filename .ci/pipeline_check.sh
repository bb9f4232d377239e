#!/usr/bin/env bash
# The pipeline end to end with real tools: the tiny recipe run locally, then on a real one-node
# Slurm cluster (a job requeued mid-step, a step killed and its jobs submitted again), then an
# installed net reproduced from its lineage; every step's output hashes must equal the local
# run's. Usage: .ci/pipeline_check.sh BIN_DIR WORK_DIR (BIN_DIR holds kage-selfplay, kage-data
# and kage-train). Slurm is skipped with a note where .ci/slurm_up.sh cannot bring it up.
set -euo pipefail
bin=$(cd "$1" && pwd); work=$2
here=$(cd "$(dirname "$0")" && pwd); recipe=$here/../scripts/recipes/tiny.toml
k=$bin/kage-selfplay
mkdir -p "$work"; cd "$work"
fail() { echo "pipeline_check: FAILED: $*" >&2; exit 1; }

# 1. Local, interrupted after two steps and resumed, at two thread counts.
"$k" pipeline run "$recipe" --out local --threads 2 --max-steps 2 --quiet >/dev/null 2>&1
"$k" pipeline run "$recipe" --out local --threads 2 --quiet >local.log 2>&1 || { cat local.log; fail "local run"; }
"$k" pipeline run "$recipe" --out local1 --threads 1 --quiet >/dev/null 2>&1 || fail "local run, 1 thread"
"$k" pipeline status local >local.txt
"$k" pipeline status local1 | diff local.txt - || fail "1 thread and 2 threads differ"
cat local.txt

# A user variant (a rule change read from its spec file) through self-play, training and a match.
(cd "$here/.." && "$k" pipeline run scripts/recipes/tiny-user.toml --out "$work/user" --threads 2 --quiet) \
  >user.log 2>&1 || { tail -5 user.log; fail "user-variant recipe"; }
"$k" pipeline status user >user.txt && grep -q '^gen-1/gate	\(accepted\|rejected\)' user.txt || { cat user.txt; fail "user-variant gate"; }
grep -q '"variant": "shinobiplus-rank4"' user/steps/gen-1-gate-*/match/summary.json || fail "user-variant match"

# 2. Reproduce: install the last generation's net with its lineage, rebuild it from nothing.
"$k" pipeline install local --step gen-2/train --to net/tiny.nnue
"$k" pipeline reproduce net/tiny.lineage.toml --out again --quiet >again.log 2>&1 ||
  { tail -5 again.log; fail "reproduce"; }
tail -1 again.log

# 3. Slurm.
rc=0; bash "$here/slurm_up.sh" || rc=$?
if [ "$rc" = 3 ]; then echo "pipeline_check: Slurm part skipped (see above)"; exit 0; fi
[ "$rc" = 0 ] || fail "slurm_up.sh exited $rc"
state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
job_of() { sed -n "/step = \"${1//\//\\/}\"/{n;s/id = \"\(.*\)\"/\1/p}" slurm/slurm/jobs.toml; }
wait_empty() {
  for _ in $(seq 600); do [ -z "$(squeue -h -o %A)" ] && return 0; sleep 0.5; done
  squeue; fail "jobs still queued after 300 s"
}
wait_empty
"$k" pipeline slurm "$recipe" --out slurm --threads 1 --submit
# A job requeued while its step runs: the step runs again and resumes its files.
sp=$(job_of gen-1/selfplay)
for _ in $(seq 600); do [ "$(state "$sp")" = RUNNING ] && break; sleep 0.1; done
[ "$(state "$sp")" = RUNNING ] || fail "gen-1/selfplay's job $sp never ran"
sleep 0.5; scontrol requeue "$sp"
grep -q 'Restarts=1' <<<"$(scontrol show job "$sp")" || fail "job $sp was not requeued"
echo "pipeline_check: requeued gen-1/selfplay (job $sp) while it ran"
# (Whether the kill came mid-step depends on timing: say which.)
for _ in $(seq 600); do case $(state "$sp") in COMPLETED | FAILED | CANCELLED) break ;; esac; sleep 0.2; done
[ "$(state "$sp")" = COMPLETED ] || fail "the requeued job $sp ended $(state "$sp")"
grep -h 'interrupted with' slurm/slurm/gen-1-selfplay-*."$sp".out ||
  echo "pipeline_check: (the requeue came after the games were played)"
# A step that fails: its tool killed; the jobs after it are cancelled; submitting again
# runs what has not finished.
for _ in $(seq 1200); do pgrep -f 'generate.*gen-2-selfplay' >/dev/null && break; sleep 0.1; done
pkill -9 -f 'generate.*gen-2-selfplay' || fail "gen-2/selfplay never ran"
failed=$(job_of gen-2/selfplay)
wait_empty
[ "$(state "$failed")" = FAILED ] || fail "gen-2/selfplay's job $failed is $(state "$failed"), not FAILED"
echo "pipeline_check: gen-2/selfplay failed (job $failed); submitting again"
"$k" pipeline slurm "$recipe" --out slurm --threads 1 --submit
wait_empty
"$k" pipeline status slurm | diff local.txt - || fail "Slurm run differs from the local run"
echo "pipeline_check: the Slurm run's outputs equal the local run's"
