#!/usr/bin/env bash
# Brings up a one-node Slurm cluster (munged + slurmctld + slurmd, partition "ci") on this
# machine for CI. Idempotent. Exit 3 = cannot be done here (callers skip with a note).
set -euo pipefail
skip() { echo "slurm_up: skipped: $*" >&2; exit 3; }

# 1. Install slurm-wlm and munge if missing (services are kept from starting during install).
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  [ "$(id -u)" -eq 0 ] || skip "not root, cannot apt-get install slurm-wlm munge"
  command -v apt-get >/dev/null || skip "no apt-get"
  made_policy=; if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  ok=1
  apt-get update -qq >/dev/null 2>&1 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      slurm-wlm munge >/dev/null 2>&1 || ok=
  [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
  [ -n "$ok" ] || skip "apt-get install slurm-wlm munge failed (no network?)"
fi
[ "$(id -u)" -eq 0 ] || skip "not root, cannot start slurm daemons"

# 2. Munge: key (munge:munge 0400), directory ownership, daemon running as the munge user.
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge /etc/munge/munge.key /var/lib/munge /var/log/munge /run/munge
chmod 0700 /etc/munge /var/lib/munge /var/log/munge; chmod 0755 /run/munge
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  pkill -x munged 2>/dev/null || true; rm -f /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || { echo "slurm_up: munged does not answer" >&2; exit 1; }
fi

# 3. slurm.conf for this one node (addresses pinned to 127.0.0.1: no DNS needed).
node=$(hostname -s); cpus=$(nproc)
mem=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
conf=$(cat <<EOF
# Written by .ci/slurm_up.sh: one-node CI cluster.
ClusterName=kageci
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# A requeued job waits cred_expire s (default 120) before it may start again; scheduler passes
# every 2 s (defaults 30/60) so it then starts at once.
AuthInfo=cred_expire=10
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2,sched_interval=2
MpiDefault=none
ReturnToService=2
JobRequeue=1
MailProg=/bin/true
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
)
changed=; if [ "$(cat /etc/slurm/slurm.conf 2>/dev/null)" != "$conf" ]; then
  printf '%s\n' "$conf" >/etc/slurm/slurm.conf; changed=1; fi

# 4. Start slurmctld and slurmd (restart them when the config changed), wait for the node.
if [ -n "$changed" ]; then pkill -x slurmd 2>/dev/null || true; pkill -x slurmctld 2>/dev/null || true
  for _ in $(seq 50); do pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || break
    sleep 0.2; done; fi
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
state=
for _ in $(seq 60); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null | head -1 || true)
  case $state in
    idle|mixed|allocated|completing) break ;;
    down*|drain*) scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
  esac
  sleep 1
done
case $state in
  idle|mixed|allocated|completing) echo "slurm_up: ready ($node, $cpus CPUs)" ;;
  *) echo "slurm_up: node $node not ready (state '${state:-none}'); see /var/log/slurm/" >&2; exit 1 ;;
esac
