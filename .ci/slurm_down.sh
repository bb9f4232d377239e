#!/usr/bin/env bash
# Stops the one-node CI Slurm cluster that .ci/slurm_up.sh started; quiet success if none runs.
set -euo pipefail

# Cancel all jobs first: their slurmstepd (which ignores SIGTERM) would outlive the daemons.
if pgrep -x slurmctld >/dev/null && pgrep -x slurmd >/dev/null; then
  squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null || true
  for _ in $(seq 75); do pgrep -x slurmstepd >/dev/null || break; sleep 0.2; done
fi
# Stop each daemon (slurmd first, munged last: the Slurm daemons use it while shutting down).
for d in slurmd slurmctld munged; do
  pkill -x "$d" 2>/dev/null || true
  # Wait up to ~10 s for it to exit, then kill it outright.
  for _ in $(seq 50); do pgrep -x "$d" >/dev/null || break; sleep 0.2; done
  pkill -9 -x "$d" 2>/dev/null || true
done
# Any job step left (its controller was already gone): kill it outright.
pkill -9 -x slurmstepd 2>/dev/null || true
# Remove stale pid files so the next start is clean.
rm -f /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid
