#!/usr/bin/env bash
# A single-host Slurm cluster for the scheduler tests, from Debian's packages (slurmctld, slurmd,
# slurm-client, munge), kept entirely in one folder: its own munge key and socket, its own
# slurm.conf, state and ports, so it touches nothing of the machine's and two of them can run side
# by side. One node, named opbench-node, with the host's real CPU count.
#
#   tests/slurm/cluster.sh start DIR   starts munged, slurmctld and slurmd; waits until the node
#                                      is idle; prints `export SLURM_CONF=DIR/slurm.conf`
#   tests/slurm/cluster.sh stop DIR    stops them (what `start` left running), keeps DIR's logs
#
# Needs root (slurmd starts jobs as their user) and the packages: `apt-get install slurmctld
# slurmd slurm-client munge` (.ci/run installs them).
set -euo pipefail

action="${1:-}"
dir="${2:-}"
[ -n "$action" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

stop() {
  for pid_file in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [ -f "$pid_file" ] || continue
    pid="$(cat "$pid_file" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file"
  done
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi
[ "$action" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for tool in munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || {
    echo "$0: $tool not found: apt-get install slurmctld slurmd slurm-client munge" >&2
    exit 2
  }
done

# A free TCP port: the kernel's choice for a socket bound to port 0.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"

cpus="$(nproc)"
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
cat >"$dir/slurm.conf" <<CONF
ClusterName=opbench-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
# Start jobs as soon as they may (the default batch_sched_delay holds batch jobs up to 3 s).
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=600
NodeName=opbench-node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus Feature=opbench-cpu State=UNKNOWN
PartitionName=test Nodes=opbench-node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF" -N opbench-node
for _ in $(seq 1 150); do
  state="$(sinfo -h -n opbench-node -o %T 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" != idle ]; then
  echo "$0: the node did not come up (state '${state:-none}'); logs in $dir/log" >&2
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  stop
  exit 1
fi
echo "export SLURM_CONF=$SLURM_CONF"
