#!/usr/bin/env bash
# A net from its recipe, scripts/recipes/<name>.toml: the gated generations and the later
# stages as one `kage-selfplay pipeline run` (resumable: rerun the same command after an
# interruption); INSTALL=1 then ships the result to engine/nets/<name>.nnue with its lineage
# beside it. The same recipe on a Slurm cluster: kage-selfplay pipeline slurm RECIPE --out DIR --submit.
#
#   scripts/make_net.sh tiny                  # the small default: about 10 s (runs/net/tiny/)
#   scripts/make_net.sh minishogi             # hours on two cores
#   INSTALL=1 scripts/make_net.sh minishogi   # ... and ship the net if it passed its matches
#   ARCH=fsf scripts/make_net.sh minishogi    # a net in FSF's architecture (make_fsf_net.sh)
set -euo pipefail
name=${1:?usage: scripts/make_net.sh RECIPE (a file name in scripts/recipes/, without .toml)}
here=$(dirname "${BASH_SOURCE[0]}")
[[ ${ARCH:-small} == fsf ]] && exec "$here/make_fsf_net.sh" "$name"
bin=${BIN:-target/release} out=${OUT:-runs/net}/$name
"$bin/kage-selfplay" pipeline run "$here/recipes/$name.toml" --out "$out" ${THREADS:+--threads "$THREADS"}
"$bin/kage-selfplay" pipeline status "$out"
if [[ ${INSTALL:-0} == 1 ]]; then
  "$bin/kage-selfplay" pipeline install "$out" --to "engine/nets/$name.nnue"
fi
