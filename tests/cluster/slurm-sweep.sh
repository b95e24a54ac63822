#!/bin/bash
# slurm-sweep.sh - a sweep sharded over a real Slurm job array merges to
# exactly the bytes of the unsharded run.
#
# As root, in a fresh temporary directory, this starts a single-node Slurm
# of its own: munged with a new key, slurmctld and slurmd with a slurm.conf
# written here (SLURM_CONF points at it; nothing is read from or written to
# /etc, /var or /run).  It submits scripts/slurm-sweep.sbatch, the script
# docs/cluster.md shows, as `sbatch --array=0-(N-1) --wait` over the bundled
# sweep tests/cluster/udp-order.yaml, merges the shards with `slabsim merge`,
# runs the same sweep unsharded, and compares the two with cmp.  Then it
# removes one shard, resubmits its task alone (--array=1) as docs/cluster.md
# says to after a lost task, and merges and compares again.
#
# TAP on stdout (docs/testing.md), everything else on stderr.  Skipped
# ("1..0 # SKIP why") when not root, when a Slurm or munge program is
# missing, or when the daemons do not come up within the bound (with the
# tails of their logs): none of that involves slabsim.  Once the node is
# idle, everything that goes wrong is a failure: a job that fails or does
# not finish, a merge that fails, a merge that differs from the unsharded
# results.  SLABSIM_REQUIRE_SLURM=1 turns every skip into a failure, for a
# CI that installs Slurm and wants to know it ran.
#
# Every wait is bounded; the daemons, and any process still working in the
# temporary directory, are stopped and the directory removed on every exit.
set -u

SRC=${SLABSIM_SOURCE_ROOT:?}
EXE=${SLABSIM_EXE:?}
SWEEP=$SRC/tests/cluster/udp-order.yaml
SBATCH_SCRIPT=$SRC/scripts/slurm-sweep.sbatch
SHARDS=3                    # 4 points: shards of 2, 1 and 1
UP_SECONDS=30               # for munged, slurmctld and the idle node
JOB_SECONDS=120             # for the whole array
RESUBMIT_SECONDS=60         # for one task resubmitted

# The test may itself run inside a Slurm job: the outer job's variables
# must not reach the unsharded run or the inner cluster's commands.
for v in $(env | sed -n 's/^\(SLURM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
unset SBATCH_ARRAY_INX SQUEUE_FORMAT SINFO_FORMAT

tap_n=0
say () { printf '%s\n' "$*" >&2; }
ok () { tap_n=$((tap_n + 1)); printf 'ok %d - %s\n' "$tap_n" "$*"; }
not_ok () { tap_n=$((tap_n + 1)); printf 'not ok %d - %s\n' "$tap_n" "$*"; }

T=
munged_pid='' ctld_pid='' slurmd_pid='' jobid='' unsharded_pid=''

# Show the last lines of every log we have, to say why.
log_tails () {
  [ -n "$T" ] || return 0
  for f in "$T"/log/*; do
    [ -s "$f" ] || continue
    # A daemon's .out repeats its .log, after the first lines.
    case $f in *.out) [ -s "${f%.out}.log" ] && continue ;; esac
    say "---- tail of ${f#"$T"/} ----"
    tail -n 25 "$f" >&2
  done
}

# Before any test line: skip (or fail when Slurm is required) with a reason.
skip_all () {
  log_tails
  if [ "${SLABSIM_REQUIRE_SLURM:-0}" = 1 ]; then
    say "slurm-sweep: cannot run, and SLABSIM_REQUIRE_SLURM=1: $*"
    printf '1..1\nnot ok 1 - Slurm cluster test could not run: %s\n' "$*"
    exit 1
  fi
  printf '1..0 # SKIP %s\n' "$*"
  exit 0
}

# A failure after the cluster is up: the test lines so far, then this one.
fail () {
  not_ok "$*"
  log_tails
  printf '1..%d\n' "$tap_n"
  exit 1
}

stop_pid () {   # stop_pid PID: TERM, up to 10 s, then KILL
  local pid=$1 i=0
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# Processes our cluster started that are not our children (slurmstepd and
# the job's processes are reparented): those whose working directory or an
# open file lies in our temporary directory.  Each is ours by construction.
stragglers () {
  find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1 \( -lname "$T" -o -lname "$T/*" \) \
    -print 2>/dev/null | cut -d/ -f3 | sort -u | grep -v -x -e "$$" -e "$BASHPID"
}

cleanup () {
  set +e
  trap - EXIT TERM INT HUP
  cd /
  if [ -n "$jobid" ] && [ -n "$ctld_pid" ]; then
    # shellcheck disable=SC2086 # one id a word
    timeout 10 scancel $jobid >/dev/null 2>&1
  fi
  stop_pid "$unsharded_pid"
  stop_pid "$slurmd_pid"
  stop_pid "$ctld_pid"
  stop_pid "$munged_pid"
  if [ -n "$T" ] && [ -d "$T" ]; then
    local left
    left=$(stragglers)
    if [ -n "$left" ]; then
      # shellcheck disable=SC2086 # one pid a word
      say "slurm-sweep: stopping leftover processes" $left
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null
      sleep 0.5
    fi
    rm -rf "$T"
    say "slurm-sweep: cleaned up at ${SECONDS}s"
  fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# ---- can it run here? ----
[ "$(id -u)" = 0 ] || skip_all "not root (slurmd and munged are started as root)"
for p in munged mungekey munge slurmctld slurmd sbatch sinfo scontrol scancel timeout; do
  command -v "$p" >/dev/null 2>&1 || skip_all "$p not found (Debian: apt-get install slurm-wlm munge)"
done
[ -x "$EXE" ] || skip_all "no slabsim at $EXE"

T=$(mktemp -d "${TMPDIR:-/tmp}/slabsim-slurm-XXXXXX") || skip_all "mktemp failed"
# munged wants its socket's directory searchable by everyone, its key's
# directory private.
chmod 755 "$T"
mkdir -p "$T/key" "$T/run" "$T/log" "$T/state" "$T/spool" "$T/work"
chmod 700 "$T/key"
chmod 755 "$T/run"

# Ports for this cluster alone: several builds may run this test at once.
# Below the kernel's ephemeral range (32768-60999), not listening now.
port_busy () {
  local hex
  hex=$(printf '%04X' "$1")
  grep -q "^ *[0-9]*: [0-9A-F]*:$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
pick_port () {
  local p i
  for i in $(seq 1 100); do
    p=$((20000 + RANDOM % 12000))
    port_busy "$p" || port_busy $((p + 1)) || { echo "$p"; return 0; }
  done
  return 1
}
CTLD_PORT=$(pick_port) || skip_all "no free TCP port pair found in 20000-31999"
SLURMD_PORT=$((CTLD_PORT + 1))

HOST=$(hostname -s 2>/dev/null || uname -n)
HOST=${HOST%%.*}
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
if [ -z "$HOST" ] || [ "${MEM_MB:-0}" -le 0 ]; then
  skip_all "cannot read the host name or its memory"
fi

# ---- munge ----
mungekey --create --keyfile="$T/key/munge.key" >"$T/log/mungekey.out" 2>&1 \
  || skip_all "mungekey could not create a key"
MUNGE_SOCKET=$T/run/munge.socket
munged --foreground --key-file="$T/key/munge.key" --socket="$MUNGE_SOCKET" \
  --pid-file="$T/run/munged.pid" --log-file="$T/log/munged.log" \
  --seed-file="$T/key/munged.seed" >"$T/log/munged.out" 2>&1 </dev/null &
munged_pid=$!
deadline=$((SECONDS + UP_SECONDS))
until timeout 5 munge --socket="$MUNGE_SOCKET" --no-input >/dev/null 2>&1; do
  kill -0 "$munged_pid" 2>/dev/null || skip_all "munged exited at start"
  [ $SECONDS -lt $deadline ] || skip_all "munged did not answer within ${UP_SECONDS}s"
  sleep 0.1
done

# ---- slurm.conf: everything Slurm keeps is in $T ----
: >"$T/plugstack.conf"
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
# Written by tests/cluster/slurm-sweep.sh for one test run.
ClusterName=slabsimtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
PlugStackConfig=$T/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
ReturnToService=2
# sbatch --wait polls after 2 s, then every 4x longer while that is under
# half of MinJobAge (so that no finished task is purged unseen): 16 s keeps
# it at every 8 s instead of 2, 10, 42 s, and each record 8 s beyond that.
MinJobAge=16
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=UNLIMITED State=UP
EOF

# ---- slurmctld and slurmd, in the foreground of their own background jobs ----
(cd "$T" && exec slurmctld -D) >"$T/log/slurmctld.out" 2>&1 </dev/null &
ctld_pid=$!
(cd "$T" && exec slurmd -D -N "$HOST") >"$T/log/slurmd.out" 2>&1 </dev/null &
slurmd_pid=$!

deadline=$((SECONDS + UP_SECONDS))
state=
while :; do
  kill -0 "$ctld_pid" 2>/dev/null || skip_all "slurmctld exited at start"
  kill -0 "$slurmd_pid" 2>/dev/null || skip_all "slurmd exited at start"
  state=$(timeout 5 sinfo --noheader --Node --nodes="$HOST" --format=%T 2>/dev/null)
  [ "$state" = idle ] && break
  [ $SECONDS -lt $deadline ] \
    || skip_all "node $HOST not idle within ${UP_SECONDS}s (state '${state:-no answer}')"
  sleep 0.5
done
say "slurm-sweep: node $HOST idle at ${SECONDS}s (ports $CTLD_PORT/$SLURMD_PORT, $T)"
ok "single-node Slurm up: munged, slurmctld, slurmd; node $HOST idle with $CPUS CPUs"

# ---- the sharded sweep, as a job array ----
cd "$T/work" || fail "cannot enter $T/work"
npoints=$("$EXE" sweep "$SWEEP" --list | wc -l)
[ "$npoints" -eq 4 ] || fail "the bundled sweep has $npoints points, not 4"

# The unsharded run, outside Slurm, while the array waits on the scheduler.
timeout "$JOB_SECONDS" "$EXE" sweep "$SWEEP" -o unsharded >"$T/log/unsharded.out" 2>&1 </dev/null &
unsharded_pid=$!

export SLABSIM="$EXE"

# submit ARRAY SECONDS: sbatch --wait the script over ARRAY; sets $job.
# Every job id goes into $jobid too, for cleanup to cancel.
submit () {
  local out=$T/log/sbatch-$1.out rc i=0 pid
  job=''
  timeout "$2" sbatch --parsable --wait --array="$1" \
    --output="$T/log/job-%A_%a.out" --chdir="$T/work" \
    "$SBATCH_SCRIPT" "$SWEEP" "$T/work/out" "$SHARDS" >"$out" 2>&1 &
  pid=$!
  # The job id, as soon as sbatch prints it.
  while [ -z "$job" ] && [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do
    job=$(sed -n '1s/^\([0-9][0-9]*\).*/\1/p' "$out")
    sleep 0.1; i=$((i + 1))
  done
  [ -n "$job" ] && jobid="$jobid $job"
  wait "$pid"
  rc=$?
  [ -n "$job" ] || job=$(sed -n '1s/^\([0-9][0-9]*\).*/\1/p' "$out")
  [ -n "$job" ] && case " $jobid " in *" $job "*) ;; *) jobid="$jobid $job" ;; esac
  [ $rc -ne 124 ] || fail "job array ${job:-?} (--array=$1) not finished within ${2}s"
  [ $rc -eq 0 ] || fail "sbatch --wait --array=$1 exited $rc (job ${job:-?}); task logs follow"
}

# task_ran JOB K: the array task's log says it ran shard K of $SHARDS.
task_ran () {
  grep -q "^slabsim-sweep: shard $2/$SHARDS " "$T/log/job-${1}_$2.out" 2>/dev/null \
    || fail "array task ${1}_$2 left no log saying it ran shard $2/$SHARDS"
}

submit "0-$((SHARDS - 1))" "$JOB_SECONDS"
for k in $(seq 0 $((SHARDS - 1))); do
  task_ran "$job" "$k"
  [ -s "$T/work/out/shard-$k/results.jsonl" ] \
    || fail "shard $k wrote no results in out/shard-$k"
done
say "slurm-sweep: job array $job done at ${SECONDS}s"
ok "job array $job: $SHARDS tasks of scripts/slurm-sweep.sbatch ran their shards"

# ---- merge, the unsharded run, and the comparison ----
"$EXE" merge out/shard-* -o merged.jsonl >"$T/log/merge.out" 2>&1 \
  || fail "slabsim merge of the $SHARDS shards failed"
ok "slabsim merge out/shard-0..$((SHARDS - 1))"

wait "$unsharded_pid"
rc=$?
unsharded_pid=''
[ $rc -ne 124 ] || fail "the unsharded sweep did not finish within ${JOB_SECONDS}s"
[ $rc -eq 0 ] || fail "the unsharded sweep exited $rc"
lines=$(wc -l <merged.jsonl)
[ "$lines" -eq "$npoints" ] || fail "merged.jsonl has $lines lines, not $npoints"
cmp merged.jsonl unsharded/results.jsonl >&2 \
  || fail "merged shards differ from the unsharded results.jsonl"
ok "merge of the Slurm shards equals the unsharded run byte for byte ($npoints points)"

# ---- a task lost and resubmitted alone (docs/cluster.md) ----
# Shard 1 as if its task had died before writing anything: --array=1 with
# the same N must run shard 1/N again, not 0/1 (the whole plan).
rm -rf out/shard-1
submit 1 "$RESUBMIT_SECONDS"
task_ran "$job" 1
[ -s out/shard-1/results.jsonl ] || fail "the resubmitted task wrote no out/shard-1"
"$EXE" merge out/shard-* -o merged2.jsonl >"$T/log/merge2.out" 2>&1 \
  || fail "slabsim merge after the resubmitted task failed"
cmp merged2.jsonl unsharded/results.jsonl >&2 \
  || fail "merge after the resubmitted task differs from the unsharded results.jsonl"
say "slurm-sweep: resubmitted task done at ${SECONDS}s"
ok "task 1 resubmitted alone (--array=1, job $job) redid shard 1/$SHARDS; merge still equal"
printf '1..%d\n' "$tap_n"
