#!/usr/bin/env bash
# kafka-responder broker service control: a fixed script with typed arguments.
#
# Usage: service-control.sh <stop|start|release|status> <unit> <logs-dir|-> [<log-dir>...]
#   stop    asks the service to stop gracefully and returns at once (the caller
#           polls `status`). systemd: a runtime drop-in sets TimeoutStopSec=infinity
#           and SendSIGKILL=no for this stop, so systemd never SIGKILLs a broker
#           whose controlled shutdown takes long; then `systemctl stop --no-block`.
#   start   removes that drop-in and starts the service (`systemctl start --no-block`).
#   release removes that drop-in without starting (a broker a human chose to leave
#           stopped); refused while the service is still stopping, since systemd
#           would then apply its own stop timeout and SIGKILL to that stop.
#   status  prints key=value lines: state, pid, one `marker=<0|1> <log-dir>` per log
#           dir (the clean-shutdown file), and systemd's stop timeout. (The last
#           controlled shutdown is timed by the probe, from the same server.log.)
# Nothing here ever sends SIGKILL.
#
# Every argument is checked against a fixed pattern before use (these are the
# allowedPattern values of the matching SSM document parameters).
# On a sandbox host directory (the working directory holds sandbox-service.sh,
# written by `kafka-responder sandbox`), the same actions drive the sandbox
# node, broker or KRaft controller: SIGTERM to its pid, and sandbox-service.sh to start it.
set -u
export LC_ALL=C

ACTION=${1:-}
UNIT=${2:-}
LOGS_DIR=${3:-}
if [ $# -ge 3 ]; then shift 3; else set --; fi

fail() { echo "$1" >&2; exit 64; }
# A host path (the one rule, lib/hosts/host-paths.ts; probe.sh has the same line).
KR_PATH_RE='^/[A-Za-z0-9_.:/@+%-]{0,1000}$'
[[ $ACTION =~ ^(stop|start|release|status)$ ]] || fail "action must be stop, start, release or status"
[[ $UNIT =~ ^[A-Za-z0-9][A-Za-z0-9@_.-]{0,62}$ ]] || fail "bad unit name"
[[ $LOGS_DIR == - || $LOGS_DIR =~ $KR_PATH_RE ]] || fail "bad logs dir"
[ $# -le 16 ] || fail "at most 16 log dirs"
for d in "$@"; do [[ $d =~ $KR_PATH_RE ]] || fail "bad log dir"; done
case $UNIT in *.service) ;; *) UNIT="$UNIT.service" ;; esac
DROP_IN_DIR="/run/systemd/system/$UNIT.d"
DROP_IN="$DROP_IN_DIR/50-kafka-responder-graceful-stop.conf"

SANDBOX=0
[ -x ./sandbox-service.sh ] && SANDBOX=1

# ------------------------------------------------------------------ the process
sandbox_pid() {
  local pid f
  # A broker's host keeps broker.pid, a KRaft controller's controller.pid.
  for f in ./broker.pid ./controller.pid; do
    pid=$(cat "$f" 2>/dev/null) || continue
    [[ $pid =~ ^[0-9]+$ ]] || continue
    # Ours only if it still runs this host's config (pids get reused).
    tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qx "$PWD/config/server.properties" || continue
    echo "$pid"
    return 0
  done
  return 1
}

main_pid() {
  if [ $SANDBOX = 1 ]; then
    sandbox_pid || echo 0
  else
    local p
    p=$(systemctl show -p MainPID --value "$UNIT" 2>/dev/null)
    [[ $p =~ ^[0-9]+$ ]] && echo "$p" || echo 0
  fi
}

service_state() {
  if [ $SANDBOX = 1 ]; then
    if sandbox_pid >/dev/null; then echo active; else echo inactive; fi
  else
    systemctl show -p ActiveState --value "$UNIT" 2>/dev/null || echo unknown
  fi
}

# ------------------------------------------------------------------ actions
do_stop() {
  if [ $SANDBOX = 1 ]; then
    local pid delay=0
    pid=$(sandbox_pid) || { echo "issued=0"; echo "note=not running"; return 0; }
    # Test knob: a slow controlled shutdown (the SIGTERM arrives this many seconds later).
    if [ -r ./slow-stop-seconds ]; then delay=$(head -c 8 ./slow-stop-seconds | tr -dc 0-9); fi
    if [ "${delay:-0}" -gt 0 ]; then
      rm -f ./slow-stop.pid
      # In its own session (it must outlive this script's process group); wait until it is.
      setsid -f bash -c 'echo $$ >./slow-stop.pid; sleep "$1"; kill -TERM "$2"; rm -f ./slow-stop.pid' _ "$delay" "$pid" </dev/null >/dev/null 2>&1
      for _ in $(seq 1 50); do [ -s ./slow-stop.pid ] && break; sleep 0.1; done
      [ -s ./slow-stop.pid ] || fail "the delayed stop did not start"
    else
      kill -TERM "$pid"
    fi
    echo "issued=1"
    echo "pid=$pid"
    return 0
  fi
  local pid
  pid=$(main_pid)
  mkdir -p "$DROP_IN_DIR" || fail "cannot write $DROP_IN_DIR"
  printf '[Service]\nTimeoutStopSec=infinity\nSendSIGKILL=no\n' >"$DROP_IN" || fail "cannot write $DROP_IN"
  systemctl daemon-reload || fail "systemctl daemon-reload failed"
  systemctl stop --no-block "$UNIT" || fail "systemctl stop $UNIT failed"
  echo "issued=1"
  echo "pid=$pid"
}

do_start() {
  if [ $SANDBOX = 1 ]; then
    if pid=$(sandbox_pid); then echo "started=0"; echo "pid=$pid"; echo "note=already running"; return 0; fi
    mkdir -p ./logs
    # Own session: the broker must outlive this script's process group, which the
    # executor ends when the script exits; so wait until it runs on its own.
    setsid -f ./sandbox-service.sh </dev/null >>./logs/kafkaServer.out 2>&1
    for _ in $(seq 1 100); do
      if pid=$(sandbox_pid); then echo "started=1"; echo "pid=$pid"; return 0; fi
      sleep 0.1
    done
    fail "the sandbox node did not start"
    return 0
  fi
  if [ -e "$DROP_IN" ]; then
    rm -f "$DROP_IN"
    systemctl daemon-reload || fail "systemctl daemon-reload failed"
  fi
  systemctl start --no-block "$UNIT" || fail "systemctl start $UNIT failed"
  echo "started=1"
}

do_release() {
  if [ $SANDBOX = 1 ]; then
    echo "released=1"
    echo "note=no drop-in on a sandbox host"
    return 0
  fi
  local state
  state=$(service_state)
  if [ "$state" = deactivating ]; then echo "released=0"; echo "note=still stopping"; return 0; fi
  if [ -e "$DROP_IN" ]; then
    rm -f "$DROP_IN" || fail "cannot remove $DROP_IN"
    systemctl daemon-reload || fail "systemctl daemon-reload failed"
  fi
  echo "released=1"
}

do_status() {
  echo "state=$(service_state)"
  echo "pid=$(main_pid)"
  for d in "$@"; do
    if [ -e "$d/.kafka_cleanshutdown" ]; then echo "marker=1 $d"; elif [ -d "$d" ]; then echo "marker=0 $d"; else echo "marker=- $d"; fi
  done
  if [ $SANDBOX = 0 ]; then
    echo "timeoutStop=$(systemctl show -p TimeoutStopUSec --value "$UNIT" 2>/dev/null)"
  fi
}

case $ACTION in
  stop) do_stop ;;
  start) do_start ;;
  release) do_release ;;
  status) do_status "$@" ;;
esac
