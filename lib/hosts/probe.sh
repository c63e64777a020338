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
# Usage: probe.sh [--config <server.properties>] [--systemd-unit <name.service>]
#                 [--unit-file <path/name.service>]
#                 [--log-bytes <n>] [--scan-deadline <seconds, default 14>]
#   --systemd-unit names the broker's unit when it cannot be found from the
#   process's cgroup (e.g. the broker is down in a restart loop).
#   --unit-file: where systemctl cannot answer (a sandbox host directory), the
#   unit's settings (TimeoutStopSec) are read from this unit file instead.

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
# systemd, logs) is read through `read -t <seconds> ... < <(cmd)`: bash stops
# waiting at the limit, and the process substitution runs cmd in its own fork
# (one process, where `$(timeout ...)` took three). T2 is for the rare calls
# that keep a $(...).
T2=()
have timeout && T2=(timeout -k 1 2)
# split SEP TEXT -> PARTS (mapfile -d < <(printf ...) forks)
split() { local IFS=$1; set -f; PARTS=($2); set +f; }

KR_CWD=$PWD

# ------------------------------------------------------------------ records
# rec PRIORITY CATEGORY KEY VALUE: one output record. Priority 0 is always
# printed; 1..4 are printed while they fit, most important first.
R0=(); R1=(); R2=(); R3=(); R4=()
rec() {
  local v=$4
  v=${v//\\/\\\\}; v=${v//$'\t'/\\t}; v=${v//$'\n'/\\n}; v=${v//$'\r'/\\r}
  local -n into=R$1
  into+=("$2"$'\t'"$3"$'\t'"$v")
}

# ------------------------------------------------------------------ the process
PID=""; CMDLINE=()
find_process() {
  local f pid arg found=() others=() cfg_real=""
  # (Unguarded: bash reads this file itself below.)
  # The bracket keeps grep from matching its own command line.
  while IFS= read -r -t 5 f; do
    pid=${f#/proc/}; pid=${pid%/cmdline}
    [[ $pid =~ ^[0-9]+$ ]] || continue
    mapfile -d '' -t CMDLINE < "$f" 2>/dev/null || continue
    local is_kafka=0 matches_cfg=0
    for arg in "${CMDLINE[@]}"; do
      [ "$arg" = "kafka.Kafka" ] && is_kafka=1
      [ -n "$CONFIG_ARG" ] && [ "$arg" = "$CONFIG_ARG" ] && matches_cfg=1
    done
    [ $is_kafka = 1 ] || continue
    if [ -z "$CONFIG_ARG" ] || [ $matches_cfg = 1 ]; then found+=("$pid"); else others+=("$pid"); fi
  done < <(grep -l -a -E 'kafka\.Kafk[a]' /proc/[0-9]*/cmdline 2>/dev/null)
  # The config may be named through a symlink: resolve it only when no command line names it as given.
  if [ ${#found[@]} = 0 ] && [ ${#others[@]} -gt 0 ] && [ -n "$CONFIG_ARG" ]; then
    cfg_real=$(realpath -m -- "$CONFIG_ARG" 2>/dev/null)
    for pid in "${others[@]}"; do
      mapfile -d '' -t CMDLINE < "/proc/$pid/cmdline" 2>/dev/null || continue
      for arg in "${CMDLINE[@]}"; do [ -n "$cfg_real" ] && [ "$arg" = "$cfg_real" ] && { found+=("$pid"); break; }; done
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
  # A relative config path is relative to the process's working directory.
  if [ -n "$PROC_CONFIG" ] && [ "${PROC_CONFIG#/}" = "$PROC_CONFIG" ]; then
    cwd=$("${T2[@]}" readlink "/proc/$PID/cwd" 2>/dev/null) && PROC_CONFIG="$cwd/$PROC_CONFIG"
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
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    [[ $line =~ ^[[:space:]]*([#!]|$) ]] && continue
    if [[ $line =~ ^[[:space:]]*([^=:[:space:]]+)[[:space:]]*[=:[:space:]][[:space:]]*(.*)$ ]]; then
      k=${BASH_REMATCH[1]}; v=${BASH_REMATCH[2]}
      v=${v%"${v##*[![:space:]]}"}
      case "$k" in log.dirs|log.dir|node.id|broker.id|process.roles|metadata.log.dir) CFG[$k]=$v ;; esac
    fi
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
for d in "${LOG_DIRS[@]}"; do
  [[ $d =~ $KR_PATH_RE ]] || warn "log dir $d has characters outside [A-Za-z0-9_.:/@+%-]: restarts cannot check its clean-shutdown marker"
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

# ------------------------------------------------------------------ log dirs
# One df for every log dir there is (a df per dir was a process each).
declare -A DF=()
present=()
for dir in "${LOG_DIRS[@]}"; do [ -d "$dir" ] && present+=("$dir"); done
if [ ${#present[@]} -gt 0 ]; then
  dfout=""; IFS= read -r -t 5 -d '' dfout < <(df -B1 --output=fstype,pcent,avail,ipcent,target -- "${present[@]}" 2>/dev/null)
  split $'\n' "$dfout"; i=0
  for l in "${PARTS[@]:1}"; do DF[${present[$i]}]=$l; i=$((i + 1)); done
fi
OFF_PART=(); OFF_DIRI=(); OFF_SEGS=(); OFF_BYTES=(); SIZE_FILES=(); declare -A SIZE_OWNER=() OFFSETS_AT=()
di=-1
for dir in "${LOG_DIRS[@]}"; do
  di=$((di + 1))
  rec 0 dir "$di.path" "$dir"
  if [ ! -d "$dir" ]; then rec 0 dir "$di.exists" false; continue; fi
  rec 0 dir "$di.exists" true
  real=$dir
  if cd -P -- "$dir" 2>/dev/null; then real=$PWD; cd -- "$KR_CWD" 2>/dev/null; fi
  rec 0 dir "$di.realPath" "$real"
  if [ -e "$dir/.kafka_cleanshutdown" ]; then rec 0 dir "$di.cleanShutdownMarker" true; else rec 0 dir "$di.cleanShutdownMarker" false; fi
  dfl=${DF[$dir]:-}
  if [[ $dfl =~ ^([^[:space:]]+)[[:space:]]+([0-9]+)%[[:space:]]+([0-9]+)[[:space:]]+([0-9]+%|-)[[:space:]]+(.+)$ ]]; then
    rec 0 dir "$di.fsType" "${BASH_REMATCH[1]}"
    rec 0 dir "$di.mountPoint" "${BASH_REMATCH[5]}"
    rec 0 dir "$di.diskUsedPercent" "${BASH_REMATCH[2]}"
    rec 0 dir "$di.diskAvailableBytes" "${BASH_REMATCH[3]}"
    rec 0 dir "$di.inodeUsedPercent" "${BASH_REMATCH[4]%\%}"
  else
    warn "df failed for $dir"
    rec 0 dir "$di.fsType" "$("${T2[@]}" stat -f -c %T -- "$dir" 2>/dev/null)"
  fi

  parts=0; nosegc=0; nosegl=0
  for p in "$dir"/*-[0-9]*/; do
    p=${p%/}; name=${p##*/}; n=${name##*-}
    [[ -n $n && $n != *[!0-9]* && -n ${name%-*} ]] || continue   # skips *-delete, *-future, *-stray
    parts=$((parts + 1))
    segs=("$p"/*.log)
    if [ ${#segs[@]} -eq 0 ]; then
      nosegc=$((nosegc + 1))
      [ $nosegl -lt $NOSEG_LIST_MAX ] && rec 2 noSegments "$di" "$name" && nosegl=$((nosegl + 1))
    fi
    if [ "${name%-*}" = __consumer_offsets ] && [ ${#OFF_PART[@]} -lt $OFFSETS_PARTITIONS_MAX ]; then
      k=${#OFF_PART[@]}
      OFF_PART+=("$n"); OFF_DIRI+=("$di"); OFF_SEGS+=(${#segs[@]}); OFF_BYTES+=(0)
      # (The same partition in two dirs: the last one listed is reported.)
      OFFSETS_AT[$n]=$k
      if [ ${#segs[@]} -gt 0 ]; then SIZE_OWNER[$p]=$k; SIZE_FILES+=("${segs[@]}"); fi
    fi
  done
  rec 0 dir "$di.partitionDirCount" "$parts"
  rec 0 dir "$di.partitionDirsWithoutSegmentsCount" "$nosegc"
done
[ ${#OFF_PART[@]} -ge $OFFSETS_PARTITIONS_MAX ] && warn "only the first $OFFSETS_PARTITIONS_MAX __consumer_offsets partitions are listed"

# ------------------------------------------------------------------ file sizes
# One stat (per 1,000 files) for the broker logs and every __consumer_offsets
# segment: size, modification time (to order rotated logs) and name.
LOG_FILES=()
if [ -n "$LOGS_DIR" ] && [ -d "$LOGS_DIR" ]; then
  for f in "$LOGS_DIR"/server.log "$LOGS_DIR"/log-cleaner.log "$LOGS_DIR"/server.log.* "$LOGS_DIR"/log-cleaner.log.*; do
    case "$f" in *.gz|*.xz|*.bz2|*.zst|*.zip) ;; *) [ -f "$f" ] && LOG_FILES+=("$f") ;; esac
  done
fi
declare -A SIZE=() MTIME=()
SIZES_OK=1
stat_batch() { # files... -> SIZE, MTIME; false when stat did not finish
  local out="" l rest name
  IFS= read -r -t 10 -d '' out < <(TZ=UTC0 stat -c '%s %y %n' -- "$@" 2>/dev/null)
  [ $? -gt 128 ] && return 1
  split $'\n' "$out"
  for l in "${PARTS[@]}"; do
    rest=${l#* }; name=${rest#* * * }
    SIZE[$name]=${l%% *}; MTIME[$name]=${rest%" $name"}
  done
}
batch=("${LOG_FILES[@]}")
for f in "${SIZE_FILES[@]}"; do
  batch+=("$f")
  if [ ${#batch[@]} -ge 1000 ]; then stat_batch "${batch[@]}" || SIZES_OK=0; batch=(); fi
done
[ ${#batch[@]} -gt 0 ] && { stat_batch "${batch[@]}" || SIZES_OK=0; }
for f in "${SIZE_FILES[@]}"; do
  k=${SIZE_OWNER[${f%/*}]}
  if [ $SIZES_OK = 1 ] && [ -n "${SIZE[$f]:-}" ]; then OFF_BYTES[k]=$((OFF_BYTES[k] + SIZE[$f])); elif [ $SIZES_OK = 0 ]; then OFF_BYTES[k]=-; fi
done
for n in "${!OFFSETS_AT[@]}"; do
  k=${OFFSETS_AT[$n]}
  rec 1 offsets "$n" "${OFF_DIRI[$k]} ${OFF_SEGS[$k]} ${OFF_BYTES[$k]}"
done

# ------------------------------------------------------------------ broker logs
# Chronological plan of (file, bytes) to read: the newest LOG_BYTES of
# server.log and its uncompressed rotations, oldest first, so that line
# numbers give the order of events.
BY_AGE=()   # rotated logs, newest first (ls -t's order: by modification time, then name)
for f in "${LOG_FILES[@]}"; do
  case "$f" in */server.log|*/log-cleaner.log) continue ;; esac
  [ -n "${MTIME[$f]:-}" ] || continue
  i=${#BY_AGE[@]}
  while [ $i -gt 0 ]; do
    g=${BY_AGE[$((i - 1))]}
    if [[ ${MTIME[$g]} > ${MTIME[$f]} ]] || { [ "${MTIME[$g]}" = "${MTIME[$f]}" ] && [[ $g < $f ]]; }; then break; fi
    BY_AGE[$i]=$g; i=$((i - 1))
  done
  BY_AGE[$i]=$f
done
plan_logs() { # base budget -> STREAM ("first-byte bytes file", oldest first), BYTES_READ
  local base=$1 budget=$2 f take files=()
  [ -n "${SIZE[$base]:-}" ] && files+=("$base")
  for f in "${BY_AGE[@]}"; do [[ $f == "$base".* ]] && files+=("$f"); done
  STREAM=(); BYTES_READ=0
  for f in "${files[@]}"; do
    [ $budget -gt 0 ] && [ -n "${SIZE[$f]:-}" ] && [ "${SIZE[$f]}" != 0 ] || continue
    take=${SIZE[$f]}; [ $take -gt $budget ] && take=$budget
    STREAM=("$((SIZE[$f] - take + 1)) $take $f" "${STREAM[@]}"); budget=$((budget - take)); BYTES_READ=$((BYTES_READ + take))
  done
}
SERVER_STREAM=(); CLEANER_STREAM=(); BYTES_READ=0; SERVER_SIZES=0
for f in "${!SIZE[@]}"; do [[ $f == */server.log || $f == */server.log.* ]] && SERVER_SIZES=$((SERVER_SIZES + SIZE[$f])); done
if [ -n "$LOGS_DIR" ] && [ -d "$LOGS_DIR" ]; then
  plan_logs "$LOGS_DIR/log-cleaner.log" "$CLEANER_LOG_BYTES"; CLEANER_STREAM=("${STREAM[@]}")
  plan_logs "$LOGS_DIR/server.log" "$(( LOG_WINDOW < LOG_BYTES ? LOG_WINDOW : LOG_BYTES ))"; SERVER_STREAM=("${STREAM[@]}")
  [ ${#STREAM[@]} = 0 ] && warn "no server.log in $LOGS_DIR"
else
  warn "log folder not found"
fi

# Log line categories: name, log, lines after a match (grep -A), newest lines
# kept, lines that must fit ("-": none, not printed; its lines only give each
# __consumer_offsets partition's latest load start and finish), an ERE for
# 0.11 to 4.x (log-patterns.ts classifies the lines; probe-records.ts knows
# each name), and fixed strings of which every line the ERE matches holds one
# (grep -F finds those at memory speed; awk then applies the ERE).
CAT_NAMES=(); declare -A CAT_SRC=() CAT_CTX=() CAT_CAP=() CAT_FLOOR=() CAT_PAT=() CAT_FIXED=()
category() { CAT_NAMES+=("$1"); CAT_SRC[$1]=$2; CAT_CTX[$1]=$3; CAT_CAP[$1]=$4; CAT_FLOOR[$1]=$5; CAT_PAT[$1]=$6; CAT_FIXED[$1]=$7; }
P_CLEANER='as uncleanable|kafka-log-cleaner-thread-[0-9]+\]: Error due to|Failed to clean up log for'
F_CLEANER='as uncleanable|]: Error due to|Failed to clean up log for'
# LogManager's own start/finish of log loading mark each broker start (all versions).
category lifecycle         server  0 8    3 'Loading logs|Logs loading complete in|Loaded [0-9]+ logs in ' 'Loading logs|Logs loading complete in| logs in '
category unclean           server  0 10   3 'since no clean shutdown file was found|since clean shutdown file was found' 'clean shutdown file was found'
category recovery          server  0 16   1 'Recovering unflushed segment|Found invalid offset during recovery|Corruption found in segment|Deleting all segments because logEndOffset' 'Recovering unflushed segment|Found invalid offset during recovery|Corruption found in segment|Deleting all segments because logEndOffset'
category loadProgress      server  0 4    3 'Completed load of|Error while loading logs in' 'Completed load of|Error while loading logs in'
category corruptIndex      server  0 15   1 'orrupted index file|Corrupt index found|Could not find offset index file|is corrupt, found [0-9]+ bytes' 'orrupted index file|Corrupt index found|Could not find offset index file|is corrupt, found '
category indexAppend       server  0 6    3 'Attempt to append an offset|Attempt to append a timestamp' 'Attempt to append a'
category cleaner           server  1 12   1 "$P_CLEANER" "$F_CLEANER"
category unsupported       server  0 10   1 'which is not enabled|Error getting request for apiKey|Error parsing request header|and unsupported version [0-9]|Received request for disabled api with key' 'which is not enabled|Error getting request for apiKey|Error parsing request header|and unsupported version |Received request for disabled api with key'
category offsetsLoadErrors server  0 8    1 'Error loading offsets from __consumer_offsets-|Failed to load metadata from __consumer_offsets-|Failed to complete the loading of metadata for __consumer_offsets-' 'Error loading offsets from __consumer_offsets-|Failed to load metadata from __consumer_offsets-|Failed to complete the loading of metadata for __consumer_offsets-'
category offsetsLoad       server  0 4000 - '(Scheduling loading|Finished loading)( of)? (offsets and group metadata|metadata) from __consumer_offsets-[0-9]+' 'metadata from __consumer_offsets-'
category shutdown          server  0 6    2 '(KafkaServer|BrokerServer) id=[0-9]+\] (shutting down|shut down completed)|Kafka Server [0-9]+\], (shutting down|shut down completed)' 'shutting down|shut down completed'
category cleanerLog        cleaner 1 24   0 "$P_CLEANER" "$F_CLEANER"

# Between the two logs in the one stream; its line number renumbers the cleaner log from 1.
MARK='@@kafka-responder: log-cleaner.log@@'
stream() { # the planned byte windows: the read ends where the plan did
  local w from bytes
  for w; do
    from=${w%% *}; w=${w#* }; bytes=${w%% *}; w=${w#* }
    if [ $from = 1 ]; then head -c $bytes -- "$w"
    else tail -c +$from -- "$w" | head -c $bytes; fi
  done
}
# The selection, in one pass: for each category the newest lines up to its
# cap, each match preceded by the line after it where the category asks for
# that (unless that line is itself a match), as `grep -n -A 1` of the
# category's own ERE alone would give them; and each __consumer_offsets
# partition's latest load start and finish. Prints "<priority>\t<category>\t<key>\t<line>".
SELECT='
BEGIN {
  nc = split(ENVIRON["KR_CATS"], defs, "\n")
  for (i = 1; i <= nc; i++) {
    split(defs[i], f, "\t"); name[i] = f[1]; src[i] = f[2]; ctx[i] = f[3] + 0; cap[i] = f[4] + 0; fl[i] = f[5]; pat[i] = f[6]
    if (fl[i] == "-") offsets = i
  }
  mark = ENVIRON["KR_MARK"]; max = ENVIRON["KR_LINE_MAX"] + 0; source = "server"; base = 0
}
{
  if (!match($0, /^[0-9]+[:-]/)) next
  n = substr($0, 1, RLENGTH - 1) + 0; text = substr($0, RLENGTH + 1)
  if (text == mark) {
    # The empty line the stream may have added before the mark is not a line of the log.
    for (i = 1; i <= nc; i++) if (blank == n - 1 && ctxn[i] == n - 1) delete ctxline[i, m[i]]
    source = "cleaner"; base = n; next
  }
  if (text == "") blank = n
  for (i = 1; i <= nc; i++) {
    if (src[i] != source) continue
    hit = (text ~ pat[i])
    if (ctx[i] && pend[i] == n - 1 && !hit) { ctxline[i, m[i]] = (n - base) "-" text; ctxn[i] = n }
    pend[i] = -9
    if (!hit) continue
    k = ++m[i]
    line[i, k] = (n - base) ":" text
    if (ctx[i]) pend[i] = n
    # A ring of the newest cap matches (each brings its line after, if any).
    if (k > cap[i]) { delete line[i, k - cap[i]]; delete ctxline[i, k - cap[i]] }
  }
}
# "<n>:<text>" / "<n>-<text>" with the text cut to max bytes.
function cut(l) {
  match(l, /^[0-9]+[:-]/)
  return substr(l, 1, RLENGTH) substr(l, RLENGTH + 1, max)
}
function emit(i, rank, l,   p) {
  p = 4
  if (rank < int(cap[i] / 2)) p = 3
  if (rank < int(cap[i] / 4)) p = 2
  if (rank < fl[i] + 0) p = 1
  printf "%d\tlog\t%s\t%s\n", p, name[i], cut(l)
}
END {
  for (i = 1; i <= nc; i++) {
    if (i == offsets) continue
    got = 0; nk = 0
    for (k = m[i]; k > m[i] - cap[i] && k > 0 && got < cap[i]; k--) {
      if ((i, k) in ctxline) { keep[++nk] = ctxline[i, k]; got++ }
      if (got < cap[i]) { keep[++nk] = line[i, k]; got++ }
    }
    for (r = 1; r <= nk; r++) emit(i, r - 1, keep[r])
  }
  if (offsets) {
    for (k = m[offsets] - cap[offsets] + 1; k <= m[offsets]; k++) {
      if (k < 1) continue
      l = line[offsets, k]
      if (!match(l, /__consumer_offsets-[0-9]+/)) continue
      p = substr(l, RSTART + 19, RLENGTH - 19)
      if (l ~ /Scheduling loading/) { start[p] = l; startn[p] = k } else if (l ~ /Finished loading/) { finish[p] = l; finishn[p] = k }
    }
    for (p in start) {
      pr = 1
      if ((p in finish) && finishn[p] > startn[p]) pr = 4
      printf "%d\tloadStart\t%s\t%s\n", pr, p, cut(start[p])
    }
    for (p in finish) printf "2\tloadFinish\t%s\t%s\n", p, cut(finish[p])
  }
}'
SKIPPED=(); cats=(); fixed=(-e "$MARK")
for c in "${CAT_NAMES[@]}"; do
  [ $c = offsetsLoad ] && [ ${#OFF_PART[@]} = 0 ] && continue
  [ ${CAT_SRC[$c]} = server ] && [ ${#SERVER_STREAM[@]} = 0 ] && continue
  [ ${CAT_SRC[$c]} = cleaner ] && [ ${#CLEANER_STREAM[@]} = 0 ] && continue
  cats+=("$c"$'\t'"${CAT_SRC[$c]}"$'\t'"${CAT_CTX[$c]}"$'\t'"${CAT_CAP[$c]}"$'\t'"${CAT_FLOOR[$c]}"$'\t'"${CAT_PAT[$c]}")
  split '|' "${CAT_FIXED[$c]}"
  for l in "${PARTS[@]}"; do fixed+=(-e "$l"); done
done
# select_lines: the one pass over the planned windows -> SELECTED (awk's records).
select_lines() {
  left
  SELECTED=""
  IFS= read -r -t $LEFT -d '' SELECTED < <(
    { stream "${SERVER_STREAM[@]}"; if [ ${#CLEANER_STREAM[@]} -gt 0 ]; then printf '\n%s\n' "$MARK"; stream "${CLEANER_STREAM[@]}"; fi; } 2>/dev/null |
      grep -a -n -F -A 1 --no-group-separator "${fixed[@]}" 2>/dev/null |
      KR_CATS=${KR_CATS%$'\n'} KR_MARK=$MARK KR_LINE_MAX=$LINE_MAX awk "$SELECT"
  )
  [ $? -gt 128 ] && warn "time budget spent: log scan stopped at its deadline"
  return 0
}
# window_needs_more: no broker start (LogManager's "Loading logs") among the
# lifecycle lines selected, yet recovery lines: a start further back, still recovering.
window_needs_more() {
  local l start=0 recovering=0
  split $'\n' "$SELECTED"
  for l in "${PARTS[@]}"; do
    case "$l" in
      [1-4]$'\t'log$'\t'lifecycle$'\t'*'Loading logs'*) start=1 ;;
      [1-4]$'\t'log$'\t'recovery$'\t'* | [1-4]$'\t'log$'\t'loadProgress$'\t'*) recovering=1 ;;
    esac
  done
  [ $start = 0 ] && [ $recovering = 1 ]
}
if [ ${#cats[@]} -gt 0 ]; then
  if in_time; then
    printf -v KR_CATS '%s\n' "${cats[@]}"
    select_lines
    if [ ${#SERVER_STREAM[@]} -gt 0 ] && [ "$BYTES_READ" -lt "$LOG_BYTES" ] && [ "$BYTES_READ" -lt "$SERVER_SIZES" ] && window_needs_more && in_time; then
      plan_logs "$LOGS_DIR/server.log" "$LOG_BYTES"; SERVER_STREAM=("${STREAM[@]}")
      select_lines
    fi
    split $'\n' "$SELECTED"
    for l in "${PARTS[@]}"; do
      case "$l" in
        [1-4]$'\t'*) p=${l%%$'\t'*}; l=${l#*$'\t'}; c=${l%%$'\t'*}; l=${l#*$'\t'}; k=${l%%$'\t'*}; rec "$p" "$c" "$k" "${l#*$'\t'}" ;;
      esac
    done
  else
    for c in "${CAT_NAMES[@]}"; do [ ${CAT_SRC[$c]} = server ] && { [ $c != offsetsLoad ] || [ ${#OFF_PART[@]} -gt 0 ]; } && SKIPPED+=("$c"); done
    [ ${#SERVER_STREAM[@]} -gt 0 ] && warn "time budget spent: log scan skipped for ${SKIPPED[*]}"
  fi
fi
for w in "${SERVER_STREAM[@]}"; do rec 0 logs file "${w#* * }"; done
rec 0 logs bytesRead "$BYTES_READ"

# ------------------------------------------------------------------ the rest
HOSTNAME_V=""
read -r HOSTNAME_V 2>/dev/null < /proc/sys/kernel/hostname
[ -n "$HOSTNAME_V" ] || HOSTNAME_V=${HOSTNAME:-unknown}
rec 0 probe version 2
rec 0 host hostname "$HOSTNAME_V"
rec 0 host brokerId "$BROKER_ID"
rec 0 host kafkaVersion "$KAFKA_VERSION"
rec 0 process pid "$PID"
rec 0 process startedAt "$STARTED_AT"
rec 0 process configPath "$CONFIG_PATH"
rec 0 process logsDir "$LOGS_DIR"
rec 0 limits openFds "$OPEN_FDS"
rec 0 limits maxFds "$MAX_FDS"
rec 0 limits mapCount "$MAP_COUNT"
rec 0 limits maxMapCount "$MAX_MAP_COUNT"
if [ -n "$SYSTEMD_UNIT" ]; then
  rec 0 systemd unit "$SYSTEMD_UNIT"
  for k in ActiveState TimeoutStopUSec NRestarts ExecMainStatus ExecMainCode; do rec 0 systemd "$k" "${SD[$k]:-}"; done
  i=0
  for ((j = ${#JOURNAL[@]} - 1; j >= 0 && i < 12; j--)); do rec $(( i < 4 ? 2 : 4 )) journal "$j" "${JOURNAL[j]:0:$LINE_MAX}"; i=$((i + 1)); done
fi
utc_iso -1; rec 0 host collectedAt "$ISO"
now_ms; rec 0 host durationMs "$(( NOW_MS - PROBE_START_MS ))"

for w in "${WARNINGS[@]}"; do rec 0 warning - "$w"; done

# Priority order while the records fit; then what was left out, and the end.
OUT=(); size=0; dropped=0
for p in 0 1 2 3 4; do
  declare -n list=R$p
  for r in "${list[@]}"; do
    if [ $((size + ${#r} + 1)) -le $MAX_OUTPUT ] || [ $p = 0 ]; then OUT+=("$r"); size=$((size + ${#r} + 1)); else dropped=$((dropped + 1)); fi
  done
  unset -n list
done
OUT+=("end"$'\t'"left-out"$'\t'"$dropped")
printf '%s\n' "${OUT[@]}"
