#!/usr/bin/env bash
# kafka-responder host probe: read-only; prints flat records on stdout, one a line:
#   <category> TAB <key> TAB <value>
# with backslash, tab, carriage return and newline in a value written \\ \t \r \n.
# lib/hosts/probe-records.ts assembles them into the report and validates it;
# this script only gathers the facts. Its last record is `end`, so a reader
# knows the output is whole.
#
# Runs on a Kafka broker host (Amazon Linux 2023, Debian) through SSM Run
# Command, or against a sandbox broker's host directory through the local
# executor. Needs bash 4.4+, coreutils, grep, awk and, when present, systemctl
# and journalctl. It never writes anything and never stops on a failed check:
# each check that cannot run adds a warning instead.
#
# Bounds: output under 24,000 characters (SSM keeps only the first 24,000 of
# stdout): every record has a priority and the least important ones are left
# out first (the `end` record counts them). Run time well under 20 s with
# thousands of partition directories (no per-directory subprocess). Few
# processes: builtins where they do, one df for all log dirs, one stat for all
# file sizes, and one pipeline (grep for fixed strings, then awk) for every
# log line category of both logs.
#
# Log lines are returned raw ("<line number>:<text>", or "<n>-<text>" for the
# line after a match) and classified by lib/hosts/log-patterns.ts, which knows
# each Kafka version's exact wording; this script only pre-selects them with
# patterns broad enough for 0.11 through 4.x.
#
# The probe is one script in four sources, joined in this order by
# lib/hosts/scripts.ts (PROBE_PARTS) into the text each SSM document carries
# and the local executor runs: this file (arguments, helpers, the process,
# systemd, config, version, process facts), probe-dirs.sh (log dirs, file
# sizes), probe-logs.sh (the log scan) and probe-report.sh (the rest, then the
# records in priority order). They share variables: run them joined, never alone.
#
# Usage: probe.sh [--config <server.properties>] [--systemd-unit <name.service>]
#                 [--unit-file <path/name.service>] [--pid-file <path/name.pid>]
#                 [--log-bytes <n>] [--scan-deadline <seconds, default 14>]
#   --systemd-unit names the broker's unit when it cannot be found from the
#   process's cgroup (e.g. the broker is down in a restart loop).
#   --unit-file: where systemctl cannot answer (a sandbox host directory), the
#   unit's settings (TimeoutStopSec) are read from this unit file instead.
#   --pid-file: the broker's pid file, where the host keeps one (a sandbox host
#   directory): its process is checked first, before every command line is read.

set -u
export LC_ALL=C

now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then NOW_MS=${EPOCHREALTIME/[.,]/}; NOW_MS=$(( NOW_MS / 1000 ))
  else NOW_MS=$(date +%s%3N 2>/dev/null); [[ $NOW_MS =~ ^[0-9]+$ ]] || NOW_MS=0; fi
}
utc_iso() { TZ=UTC0 printf -v ISO '%(%Y-%m-%dT%H:%M:%SZ)T' "$1"; }
now_ms; PROBE_START_MS=$NOW_MS
MAX_OUTPUT=23500          # characters of records; SSM keeps the first 24,000 of stdout
LINE_MAX=500              # each log line is cut to this many bytes
LOG_BYTES=$((40 * 1024 * 1024))   # bound: newest bytes of server.log (+ rotated) ever scanned
# What is read first: the newest LOG_WINDOW bytes. The scan reaches back to
# LOG_BYTES only for a broker still recovering whose latest start is older
# than that window; a broker that runs pays for its newest 8 MiB only,
# however much it has logged (what is older belongs to its start, long done).
LOG_WINDOW=$((8 * 1024 * 1024))
CLEANER_LOG_BYTES=$((8 * 1024 * 1024))
NOSEG_LIST_MAX=20         # partition dirs without segments listed per log dir
OFFSETS_PARTITIONS_MAX=200
CONFIG_ARG=""
UNIT_ARG=""
UNIT_FILE_ARG=""
PID_FILE_ARG=""
SCAN_DEADLINE_ARG=""

WARNINGS=()
warn() { WARNINGS+=("$1"); }

while [ $# -gt 0 ]; do
  case "$1" in
    --config) CONFIG_ARG="${2:-}"; shift 2 ;;
    --systemd-unit)
      if [[ "${2:-}" =~ ^[A-Za-z0-9@._:-]+\.service$ ]]; then UNIT_ARG=$2; else warn "ignored bad --systemd-unit"; fi
      shift 2 ;;
    --unit-file)
      if [[ "${2:-}" =~ ^[A-Za-z0-9@._:/-]+\.service$ ]]; then UNIT_FILE_ARG=$2; else warn "ignored bad --unit-file"; fi
      shift 2 ;;
    --pid-file)
      if [[ "${2:-}" =~ ^[A-Za-z0-9@._:/-]+\.pid$ ]]; then PID_FILE_ARG=$2; else warn "ignored bad --pid-file"; fi
      shift 2 ;;
    --scan-deadline)
      if [[ "${2:-}" =~ ^[0-9]{1,3}$ ]]; then SCAN_DEADLINE_ARG=$2; else warn "ignored bad --scan-deadline"; fi
      shift 2 ;;
    --log-bytes)
      if [[ "${2:-}" =~ ^[0-9]{1,10}$ ]]; then LOG_BYTES=$2; LOG_WINDOW=$2; else warn "ignored bad --log-bytes"; fi
      shift 2 ;;
    *) warn "ignored unknown argument"; shift ;;
  esac
done

have() { command -v "$1" >/dev/null 2>&1; }
# The whole probe must answer within 20 s: log scans stop once SCAN_DEADLINE
# seconds have passed (bash's SECONDS, no fork), and each external command gets
# at most the time that is left.
SCAN_DEADLINE=${SCAN_DEADLINE_ARG:-14}
left() { LEFT=$(( SCAN_DEADLINE + 2 - SECONDS )); [ $LEFT -lt 1 ] && LEFT=1; }
in_time() { [ "$SECONDS" -lt "$SCAN_DEADLINE" ]; }
# What can hang or read a lot (other processes' /proc files, data dirs (NFS?),
# systemd, logs) is read through `read -t <seconds> ... < <(cmd)` when it is a
# few lines, `bulk` (below) when it can be kilobytes: bash stops waiting at the
# limit, and the process substitution runs cmd in its own fork (one process,
# where `$(timeout ...)` took three). T2 is for the rare calls that keep a $(...).
T2=()
have timeout && T2=(timeout -k 1 2)
# bulk VAR SECONDS FD: what an `exec {FD}< <(cmd)` prints, into VAR; false when
# its first byte did not come within SECONDS (cmd is left to finish alone, as
# `read -t` leaves it). Under -t (and with -d) bash's read takes a pipe a byte at
# a time, a select and two sigprocmask each: 50 ms for 25 KB of log lines,
# 250 ms for a 1,000-file stat. Only the first byte is read so; `read -N`
# without -t takes the rest in blocks, in this shell (no subshell, no process).
# The awk programs print at their end: that first byte is all the waiting there is.
bulk() {
  local -n bulk_into=$1
  local first="" rest="" rc=0
  bulk_into=""
  IFS= read -r -t "$2" -N 1 first <&"$3" || rc=$?
  [ $rc -gt 128 ] && return 1
  if [ $rc -eq 0 ]; then IFS= read -r -N 100000000 rest <&"$3"; bulk_into=$first$rest; fi
  return 0
}
# split SEP TEXT -> PARTS (mapfile -d < <(printf ...) forks)
split() { local IFS=$1; set -f; PARTS=($2); set +f; }

KR_CWD=$PWD

# ------------------------------------------------------------------ records
# rec PRIORITY CATEGORY KEY VALUE: one output record. Priority 0 is always
# printed; 1..4 are printed while they fit, most important first.
R0=(); R1=(); R2=(); R3=(); R4=()
rec() {
  local v=$4
  case $v in *[\\$'\t\n\r']*) v=${v//\\/\\\\}; v=${v//$'\t'/\\t}; v=${v//$'\n'/\\n}; v=${v//$'\r'/\\r} ;; esac
  local -n into=R$1
  into+=("$2"$'\t'"$3"$'\t'"$v")
}

# ------------------------------------------------------------------ the process
PID=""; CMDLINE=()
find_process() {
  local f pid arg i found=() others=() args US=$'\x1f'
  consider() { # /proc/<pid>/cmdline -> found (our broker) or others (another kafka.Kafka)
    pid=${1#/proc/}; pid=${pid%/cmdline}
    case $pid in ''|*[!0-9]*) return ;; esac
    mapfile -d '' -t CMDLINE < "$1" 2>/dev/null || return
    # Whole arguments matched in the joined command line (a test per argument of
    # every Java process was a hundred commands).
    printf -v args "$US%s" "${CMDLINE[@]}"; args+=$US
    [[ $args == *"${US}kafka.Kafka$US"* ]] || return
    if [ -z "$CONFIG_ARG" ] || [[ $args == *"$US$CONFIG_ARG$US"* ]]; then found+=("$pid"); else others+=("$pid"); fi
  }
  # (read fails on a last line without a newline, yet fills f: a pid file written without one counts.)
  f=""
  if [ -n "$PID_FILE_ARG" ] && { IFS= read -r f || [ -n "$f" ]; } < "$PID_FILE_ARG" 2>/dev/null; then consider "/proc/${f%$'\r'}/cmdline"; fi
  if [ ${#found[@]} = 0 ]; then
    others=()
    # (Unguarded: bash reads this file itself below.)
    # The bracket keeps grep from matching its own command line.
    while IFS= read -r -t 5 f; do consider "$f"; done < <(grep -l -a -E 'kafka\.Kafk[a]' /proc/[0-9]*/cmdline 2>/dev/null)
  fi
  # The config may be named another way (through a symlink, or relative to the broker's
  # working directory, as `bin/kafka-server-start.sh config/server.properties` starts it):
  # the same file, by device and inode, when no command line names it as given.
  if [ ${#found[@]} = 0 ] && [ ${#others[@]} -gt 0 ] && [ -n "$CONFIG_ARG" ] && [ -e "$CONFIG_ARG" ]; then
    for pid in "${others[@]}"; do
      mapfile -d '' -t CMDLINE < "/proc/$pid/cmdline" 2>/dev/null || continue
      for ((i = 0; i < ${#CMDLINE[@]} - 1; i++)); do
        [ "${CMDLINE[$i]}" = kafka.Kafka ] || continue
        arg=${CMDLINE[$((i + 1))]}
        [ "${arg#/}" = "$arg" ] && arg=/proc/$pid/cwd/$arg
        [[ $arg -ef $CONFIG_ARG ]] && found+=("$pid")
        break
      done
    done
  fi
  if [ ${#found[@]} -gt 1 ]; then
    # A KRaft host may also run a dedicated controller (kafka.Kafka too): prefer a broker.
    local brokers=() p c line roles i
    for p in "${found[@]}"; do
      mapfile -d '' -t CMDLINE < "/proc/$p/cmdline" 2>/dev/null
      c=""; roles="broker"
      for ((i = 0; i < ${#CMDLINE[@]} - 1; i++)); do [ "${CMDLINE[$i]}" = kafka.Kafka ] && c=${CMDLINE[$((i + 1))]}; done
      if [ -n "$c" ] && [ -r "$c" ]; then
        while IFS= read -r line || [ -n "$line" ]; do
          [[ $line =~ ^[[:space:]]*process\.roles[[:space:]]*[=:][[:space:]]*(.*)$ ]] && roles=${BASH_REMATCH[1]}
        done < "$c"
      fi
      [[ $roles == *broker* ]] && brokers+=("$p")
    done
    [ ${#brokers[@]} -gt 0 ] && found=("${brokers[@]}")
    [ ${#found[@]} -gt 1 ] && warn "several kafka.Kafka broker processes match; using pid ${found[0]}"
  fi
  if [ ${#found[@]} -ge 1 ]; then
    PID=${found[0]}
    mapfile -d '' -t CMDLINE < "/proc/$PID/cmdline" 2>/dev/null
  else
    CMDLINE=()
  fi
}
find_process

PROC_CONFIG=""; LOGS_DIR=""; CLASSPATH_DIRS=()
if [ -n "$PID" ]; then
  prev=""
  for arg in "${CMDLINE[@]}"; do
    case "$arg" in
      -Dkafka.logs.dir=*) LOGS_DIR=${arg#-Dkafka.logs.dir=} ;;
    esac
    if [ "$prev" = "kafka.Kafka" ] && [ -z "$PROC_CONFIG" ]; then PROC_CONFIG=$arg; fi
    if [ "$prev" = "-cp" ] || [ "$prev" = "-classpath" ]; then
      split ':' "$arg"
      for cp in "${PARTS[@]}"; do CLASSPATH_DIRS+=("${cp%/*}"); done
    fi
    prev=$arg
  done
  # A relative config path is relative to the process's working directory (looked up only when
  # no --config names the file: it is read only then). readlink of a /proc link never touches the
  # filesystem it names, so it needs no timeout.
  if [ -z "$CONFIG_ARG" ] && [ -n "$PROC_CONFIG" ] && [ "${PROC_CONFIG#/}" = "$PROC_CONFIG" ]; then
    cwd=$(readlink "/proc/$PID/cwd" 2>/dev/null) && PROC_CONFIG="$cwd/$PROC_CONFIG"
  fi
fi

# ------------------------------------------------------------------ systemd unit
SYSTEMD_UNIT=$UNIT_ARG
if [ -z "$SYSTEMD_UNIT" ] && [ -n "$PID" ] && [ -r "/proc/$PID/cgroup" ]; then
  while IFS= read -r line; do
    if [[ $line =~ /([^/]+\.service)(/|$) ]]; then SYSTEMD_UNIT=${BASH_REMATCH[1]}; fi
  done < "/proc/$PID/cgroup"
fi
HAVE_SYSTEMCTL=0
if have systemctl && { [ -d /run/systemd/system ] || [ -n "$UNIT_ARG" ]; }; then HAVE_SYSTEMCTL=1; fi
if [ -z "$SYSTEMD_UNIT" ] && [ $HAVE_SYSTEMCTL = 1 ] && [ -z "$CONFIG_ARG" ]; then
  # Not running (crash loop?): the unit is still where the answer is.
  for u in kafka.service kafka-server.service confluent-kafka.service confluent-server.service; do
    st=""; IFS= read -r -t 5 st < <(systemctl show -p LoadState --value "$u" 2>/dev/null)
    if [ "$st" = "loaded" ]; then SYSTEMD_UNIT=$u; break; fi
  done
fi
declare -A SD=()
if [ -n "$SYSTEMD_UNIT" ] && [ $HAVE_SYSTEMCTL = 1 ]; then
  while IFS= read -r -t 5 line; do
    SD[${line%%=*}]=${line#*=}
  done < <(systemctl show "$SYSTEMD_UNIT" -p ActiveState -p TimeoutStopUSec -p NRestarts -p ExecMainStatus -p ExecMainCode -p ExecStart 2>/dev/null)
  [ ${#SD[@]} -eq 0 ] && warn "systemctl show $SYSTEMD_UNIT gave nothing"
fi
if [ ${#SD[@]} -eq 0 ] && [ -n "$UNIT_FILE_ARG" ] && [ -r "$UNIT_FILE_ARG" ]; then
  # No systemd to ask: the unit file's own TimeoutStopSec= (the last one wins, as in systemd).
  SYSTEMD_UNIT=${UNIT_FILE_ARG##*/}
  while IFS= read -r line; do
    if [[ $line =~ ^[[:space:]]*TimeoutStopSec[[:space:]]*=[[:space:]]*([^[:space:]#].*[^[:space:]]|[^[:space:]#])[[:space:]]*$ ]]; then SD[TimeoutStopUSec]=${BASH_REMATCH[1]}; fi
  done < "$UNIT_FILE_ARG"
fi
# A broker in a restart loop often dies before log4j starts: the reason is in
# the journal (incident 4). Only read when systemd has restarted it or it is down.
JOURNAL=()
if [ ${#SD[@]} -gt 0 ] && have journalctl && { [ "${SD[NRestarts]:-0}" != 0 ] || [ "${SD[ActiveState]:-}" != active ]; }; then
  while IFS= read -r -t 5 line; do JOURNAL+=("$line"); done < <(journalctl -u "$SYSTEMD_UNIT" -n 12 --no-pager -o short-iso 2>/dev/null)
fi

# ------------------------------------------------------------------ config
CONFIG_PATH=""
if [ -n "$CONFIG_ARG" ]; then CONFIG_PATH=$CONFIG_ARG
elif [ -n "$PROC_CONFIG" ]; then CONFIG_PATH=$PROC_CONFIG
else
  if [[ "${SD[ExecStart]:-}" =~ ([^[:space:]\;]+\.properties) ]]; then CONFIG_PATH=${BASH_REMATCH[1]}; fi
  if [ -z "$CONFIG_PATH" ]; then
    for c in /etc/kafka/server.properties /etc/kafka/kraft/server.properties /opt/kafka/config/server.properties \
             /opt/kafka/config/kraft/server.properties /usr/local/kafka/config/server.properties \
             /home/kafka/kafka/config/server.properties /etc/kafka/conf/server.properties; do
      if [ -r "$c" ]; then CONFIG_PATH=$c; break; fi
    done
  fi
fi

declare -A CFG=()
read_properties() {   # file -> CFG[key]=value for the keys we use (Java .properties, simplified)
  local line k v
  # (Patterns, not [[ =~ ]]: bash compiles a regular expression at every test.)
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}; line=${line#"${line%%[![:space:]]*}"}
    # The key ends at the first '=', ':' or blank; one of them, blanks around it, then the value.
    k=${line%%[=:[:space:]]*}
    case "$k" in log.dirs|log.dir|node.id|broker.id|process.roles|metadata.log.dir) ;; *) continue ;; esac
    v=${line#"$k"}
    [ -n "$v" ] || continue
    v=${v#"${v%%[![:space:]]*}"}
    case $v in [=:]*) v=${v:1}; v=${v#"${v%%[![:space:]]*}"} ;; esac
    CFG[$k]=${v%"${v##*[![:space:]]}"}
  done < "$1"
}
if [ -n "$CONFIG_PATH" ] && [ -r "$CONFIG_PATH" ]; then
  read_properties "$CONFIG_PATH"
elif [ -n "$CONFIG_PATH" ]; then
  warn "cannot read config $CONFIG_PATH"
else
  warn "no server.properties found"
fi

LOG_DIRS=()
# (split, not here-strings: older bash writes those to a temp file)
if [ -n "${CFG[log.dirs]:-}" ]; then split ',' "${CFG[log.dirs]}"; LOG_DIRS=("${PARTS[@]}")
elif [ -n "${CFG[log.dir]:-}" ]; then split ',' "${CFG[log.dir]}"; LOG_DIRS=("${PARTS[@]}")
elif [ -n "$CONFIG_PATH" ] && [ -r "$CONFIG_PATH" ]; then LOG_DIRS=(/tmp/kafka-logs)   # Kafka's default
fi
trimmed=()
for d in "${LOG_DIRS[@]}"; do
  d=${d#"${d%%[![:space:]]*}"}; d=${d%"${d##*[![:space:]]}"}
  [ -n "$d" ] && [ "$d" != / ] && d=${d%/}
  [ -n "$d" ] && trimmed+=("$d")
done
LOG_DIRS=("${trimmed[@]}")
# A host path (the one rule, lib/hosts/host-paths.ts; service-control.sh has the same line):
# a log dir outside it cannot be handed to the service script, so its marker goes unchecked there.
KR_PATH_RE='^/[A-Za-z0-9_.:/@+%-]{0,1000}$'
# Its {0,1000} checked as a length: glibc compiles that bounded repetition into
# ~20 ms of CPU at every use, a third of the probe's own.
KR_PATH_RE_UNBOUNDED=${KR_PATH_RE/\{0,1000\}/*}
for d in "${LOG_DIRS[@]}"; do
  [ ${#d} -le 1001 ] && [[ $d =~ $KR_PATH_RE_UNBOUNDED ]] || warn "log dir $d has characters outside [A-Za-z0-9_.:/@+%-]: restarts cannot check its clean-shutdown marker"
done

BROKER_ID=${CFG[node.id]:-${CFG[broker.id]:-}}
if ! [[ $BROKER_ID =~ ^[0-9]+$ ]]; then
  BROKER_ID=""
  for d in "${LOG_DIRS[@]}"; do
    if [ -r "$d/meta.properties" ]; then
      while IFS= read -r line; do
        case "$line" in node.id=*|broker.id=*) BROKER_ID=${line#*=}; BROKER_ID=${BROKER_ID%$'\r'} ;; esac
      done < "$d/meta.properties"
      [ -n "$BROKER_ID" ] && break
    fi
  done
fi

if [ -z "$LOGS_DIR" ] && [ -n "$CONFIG_PATH" ]; then
  cdir=${CONFIG_PATH%/*}; [ "$cdir" = "$CONFIG_PATH" ] && cdir=.
  for c in "$cdir/../logs" /var/log/kafka /opt/kafka/logs; do
    if [ -e "$c/server.log" ]; then LOGS_DIR=$c; break; fi
  done
fi
# (cd -P: the physical path without a process; realpath only for a dir that is not there)
if [ -n "$LOGS_DIR" ] && [ -d "$LOGS_DIR" ] && cd -P -- "$LOGS_DIR" 2>/dev/null; then LOGS_DIR=$PWD; cd -- "$KR_CWD" 2>/dev/null
elif [ -n "$LOGS_DIR" ]; then LOGS_DIR=$(realpath -m -- "$LOGS_DIR" 2>/dev/null || echo "$LOGS_DIR"); fi

# ------------------------------------------------------------------ Kafka version
KAFKA_VERSION=""
shopt -s nullglob
for d in "${CLASSPATH_DIRS[@]}" "${CONFIG_PATH%/*}/../libs" /opt/kafka/libs /usr/share/java/kafka; do
  for j in "$d"/kafka_2.1[0-9]-*.jar "$d"/kafka-clients-*.jar; do
    n=${j##*/}
    if [[ $n =~ ^kafka(_2\.1[0-9]|-clients)-([0-9][0-9A-Za-z.+-]*)\.jar$ ]] && [[ $n != *-sources.jar && $n != *-test* && $n != *-javadoc.jar ]]; then
      KAFKA_VERSION=${BASH_REMATCH[2]}; break 2
    fi
  done
done

# ------------------------------------------------------------------ process facts
STARTED_AT=""; OPEN_FDS=""; MAX_FDS=""; MAP_COUNT=""; MAX_MAP_COUNT=""
if [ -n "$PID" ]; then
  # Start time without ps: boot time + field 22 of /proc/PID/stat (1/100 s ticks).
  l=""; k=""; read -r l < "/proc/$PID/stat" 2>/dev/null
  [[ ${l##*) } =~ ^([^ ]+ ){19}([0-9]+) ]] && while read -r k v; do [ "$k" = btime ] && break; done < /proc/stat
  if [ "$k" = btime ]; then utc_iso $((v + BASH_REMATCH[2] / 100)); STARTED_AT=$ISO
  else
    warn "cannot read process start time"
  fi
  fds=(/proc/"$PID"/fd/*)
  if [ -r "/proc/$PID/fd" ]; then OPEN_FDS=${#fds[@]}; else warn "cannot read /proc/$PID/fd"; fi
  if [ -r "/proc/$PID/limits" ]; then
    while IFS= read -r line; do
      if [[ $line =~ ^Max\ open\ files[[:space:]]+([0-9]+|unlimited) ]]; then MAX_FDS=${BASH_REMATCH[1]}; fi
    done < "/proc/$PID/limits"
  fi
  if [ -r "/proc/$PID/maps" ]; then IFS=' ' read -r -t 5 MAP_COUNT _ < <(wc -l "/proc/$PID/maps" 2>/dev/null)
  else warn "cannot read /proc/$PID/maps"; fi
fi
[ -r /proc/sys/vm/max_map_count ] && read -r MAX_MAP_COUNT < /proc/sys/vm/max_map_count
