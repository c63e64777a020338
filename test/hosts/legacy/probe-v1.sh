#!/usr/bin/env bash
# kafka-responder host probe: read-only, prints ONE JSON document on stdout.
#
# Runs on a Kafka broker host (Amazon Linux 2023, Debian) through SSM Run
# Command, or against a sandbox broker's host directory through the local
# executor. Needs bash 4.4+, coreutils, grep and, when present, systemctl and
# journalctl. It never writes anything and never stops on a failed check: each
# check that cannot run adds a warning instead.
#
# Bounds: output under 24,000 characters (SSM keeps only the first 24,000 of
# stdout), run time well under 20 s with thousands of partition directories
# (no per-directory subprocess), few processes (builtins where they do; one
# grep per log for all line categories).
#
# Log lines are returned raw ("<line number>:<text>", or "<n>-<text>" for the
# line after a match) and classified by lib/hosts/log-patterns.ts, which knows
# each Kafka version's exact wording; this script only pre-selects them with
# fixed strings broad enough for 0.11 through 4.x.
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
MAX_OUTPUT=23500          # chars; SSM cuts at 24,000
LINE_MAX=500              # each log line is cut to this many bytes
LOG_BYTES=$((40 * 1024 * 1024))   # newest bytes of server.log (+ rotated) scanned
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
      if [[ "${2:-}" =~ ^[0-9]{1,10}$ ]]; then LOG_BYTES=$2; else warn "ignored bad --log-bytes"; fi
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
HAVE_TIMEOUT=0; have timeout && HAVE_TIMEOUT=1
# t SECONDS cmd...: run an external command under a time limit when possible;
# for what can hang or read a lot (other processes' /proc files, data dirs
# (NFS?), systemd, logs), not paths bash itself has just read.
t() { local s=$1; shift; if [ $HAVE_TIMEOUT = 1 ]; then timeout -k 1 "$s" "$@"; else "$@"; fi; }
# split SEP TEXT -> PARTS (mapfile -d < <(printf ...) forks)
split() { local IFS=$1; set -f; PARTS=($2); set +f; }

# ------------------------------------------------------------------ JSON helpers
CTRL_FROM=(); CTRL_TO=()
for c in 1 2 3 4 5 6 7 8 11 12 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31; do
  printf -v hex '%02x' "$c"
  printf -v ch '%b' "\\x$hex"
  printf -v esc '\\u%04x' "$c"
  CTRL_FROM+=("$ch"); CTRL_TO+=("$esc")
done
# jstr VALUE: prints VALUE as a JSON string literal into the variable J.
jstr() {
  local s=$1 i
  s=${s//\\/\\\\}; s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}; s=${s//$'\r'/\\r}; s=${s//$'\t'/\\t}
  if [[ $s == *[[:cntrl:]]* ]]; then
    for i in "${!CTRL_FROM[@]}"; do s=${s//"${CTRL_FROM[$i]}"/"${CTRL_TO[$i]}"}; done
  fi
  J="\"$s\""
}
jstr_or_null() { if [ -n "$1" ]; then jstr "$1"; else J=null; fi; }
jnum_or_null() { if [[ "$1" =~ ^-?[0-9]+$ ]]; then J=$1; else J=null; fi; }
join_comma() { local out="" v; for v in "$@"; do out+="${out:+,}$v"; done; J=$out; }
# jarr name...: JSON array of the given strings into J.
jarr() {
  local out="" v
  for v in "$@"; do jstr "$v"; out+="${out:+,}$J"; done
  J="[$out]"
}

# ------------------------------------------------------------------ the process
PID=""; CMDLINE=()
find_process() {
  local f pid arg found=() cfg_real=""
  # (Unguarded: bash reads this file itself below.)
  [ -n "$CONFIG_ARG" ] && cfg_real=$(realpath -m -- "$CONFIG_ARG" 2>/dev/null)
  # The bracket keeps grep from matching its own command line.
  while IFS= read -r f; do
    pid=${f#/proc/}; pid=${pid%/cmdline}
    [[ $pid =~ ^[0-9]+$ ]] || continue
    mapfile -d '' -t CMDLINE < "$f" 2>/dev/null || continue
    local is_kafka=0 matches_cfg=0
    for arg in "${CMDLINE[@]}"; do
      [ "$arg" = "kafka.Kafka" ] && is_kafka=1
      if [ -n "$CONFIG_ARG" ] && { [ "$arg" = "$CONFIG_ARG" ] || [ "$arg" = "$cfg_real" ]; }; then matches_cfg=1; fi
    done
    [ $is_kafka = 1 ] || continue
    if [ -z "$CONFIG_ARG" ] || [ $matches_cfg = 1 ]; then found+=("$pid"); fi
  done < <(t 5 grep -l -a -E 'kafka\.Kafk[a]' /proc/[0-9]*/cmdline 2>/dev/null)
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
    cwd=$(t 2 readlink "/proc/$PID/cwd" 2>/dev/null) && PROC_CONFIG="$cwd/$PROC_CONFIG"
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
    st=$(t 5 systemctl show -p LoadState --value "$u" 2>/dev/null)
    if [ "$st" = "loaded" ]; then SYSTEMD_UNIT=$u; break; fi
  done
fi
declare -A SD=()
if [ -n "$SYSTEMD_UNIT" ] && [ $HAVE_SYSTEMCTL = 1 ]; then
  while IFS= read -r line; do
    SD[${line%%=*}]=${line#*=}
  done < <(t 5 systemctl show "$SYSTEMD_UNIT" -p ActiveState -p TimeoutStopUSec -p NRestarts -p ExecMainStatus -p ExecMainCode -p ExecStart 2>/dev/null)
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
  mapfile -t JOURNAL < <(t 5 journalctl -u "$SYSTEMD_UNIT" -n 12 --no-pager -o short-iso 2>/dev/null)
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
[ -n "$LOGS_DIR" ] && LOGS_DIR=$(realpath -m -- "$LOGS_DIR" 2>/dev/null || echo "$LOGS_DIR")

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
  if [ -r "/proc/$PID/maps" ]; then MAP_COUNT=$(t 5 wc -l < "/proc/$PID/maps" 2>/dev/null); MAP_COUNT=${MAP_COUNT//[[:space:]]/}
  else warn "cannot read /proc/$PID/maps"; fi
fi
[ -r /proc/sys/vm/max_map_count ] && read -r MAX_MAP_COUNT < /proc/sys/vm/max_map_count

# ------------------------------------------------------------------ log dirs
LOGDIR_JSON=(); OFFSETS_JSON=(); OFF_PART=(); OFF_DIR=(); OFF_SEGS=(); OFF_BYTES=(); DU_FILES=()
declare -A OFFSETS_DIR_OF=() DU_OWNER=()
du_flush() { # bytes of __consumer_offsets segments per partition: one du for ~1000 files
  local out l k
  [ ${#DU_FILES[@]} -gt 0 ] || return 0
  out=$(t 10 du -b -- "${DU_FILES[@]}" 2>/dev/null)
  if [ $? -ge 124 ]; then for k in "${DU_OWNER[@]}"; do OFF_BYTES[$k]=null; done   # unfinished
  else
    split $'\n' "$out"
    for l in "${PARTS[@]}"; do
      k=${l#*$'\t'}; k=${DU_OWNER[${k%/*}]:-}; l=${l%%$'\t'*}
      [[ $k && $l && $l != *[!0-9]* ]] && OFF_BYTES[k]=$((OFF_BYTES[k] + l))
    done
  fi
  DU_FILES=(); DU_OWNER=()
}
for dir in "${LOG_DIRS[@]}"; do
  jstr "$dir"; o="{\"path\":$J"
  if [ ! -d "$dir" ]; then
    LOGDIR_JSON+=("$o,\"exists\":false}")
    continue
  fi
  real=$(t 2 realpath -e -- "$dir" 2>/dev/null || echo "$dir")
  jstr "$real"; o+=",\"exists\":true,\"realPath\":$J"
  if [ -e "$dir/.kafka_cleanshutdown" ]; then o+=",\"cleanShutdownMarker\":true"; else o+=",\"cleanShutdownMarker\":false"; fi
  fstype=""; pcent=""; avail=""; ipcent=""; target=""
  dfout=$(t 5 df -B1 --output=fstype,pcent,avail,ipcent,target -- "$dir" 2>/dev/null); dfout=${dfout##*$'\n'}
  if [[ $dfout =~ ^([^[:space:]]+)[[:space:]]+([0-9]+)%[[:space:]]+([0-9]+)[[:space:]]+([0-9]+%|-)[[:space:]]+(.+)$ ]]; then
    fstype=${BASH_REMATCH[1]}; pcent=${BASH_REMATCH[2]}; avail=${BASH_REMATCH[3]}; ipcent=${BASH_REMATCH[4]%\%}; target=${BASH_REMATCH[5]}
  else
    warn "df failed for $dir"
    fstype=$(t 3 stat -f -c %T -- "$dir" 2>/dev/null)
  fi
  jstr_or_null "$fstype"; o+=",\"fsType\":$J"
  jstr_or_null "$target"; o+=",\"mountPoint\":$J"
  jnum_or_null "$pcent"; o+=",\"diskUsedPercent\":$J"
  jnum_or_null "$avail"; o+=",\"diskAvailableBytes\":$J"
  jnum_or_null "$ipcent"; o+=",\"inodeUsedPercent\":$J"

  parts=0; noseg=(); nosegc=0
  for p in "$dir"/*-[0-9]*/; do
    p=${p%/}; name=${p##*/}; n=${name##*-}
    [[ -n $n && $n != *[!0-9]* && -n ${name%-*} ]] || continue   # skips *-delete, *-future, *-stray
    parts=$((parts + 1))
    segs=("$p"/*.log)
    if [ ${#segs[@]} -eq 0 ]; then
      nosegc=$((nosegc + 1))
      [ ${#noseg[@]} -lt $NOSEG_LIST_MAX ] && noseg+=("$name")
    fi
    if [ "${name%-*}" = __consumer_offsets ] && [ ${#OFF_PART[@]} -lt $OFFSETS_PARTITIONS_MAX ]; then
      OFF_PART+=("$n"); OFF_DIR+=("$dir"); OFF_SEGS+=(${#segs[@]}); OFF_BYTES+=(0)
      if [ ${#segs[@]} -gt 0 ]; then
        DU_OWNER[$p]=$((${#OFF_PART[@]} - 1)); DU_FILES+=("${segs[@]}")
        [ ${#DU_FILES[@]} -ge 1000 ] && du_flush
      fi
    fi
  done
  jarr "${noseg[@]}"
  o+=",\"partitionDirCount\":$parts,\"partitionDirsWithoutSegments\":$J,\"partitionDirsWithoutSegmentsCount\":$nosegc}"
  LOGDIR_JSON+=("$o")
done
du_flush
for k in "${!OFF_PART[@]}"; do
  jstr "${OFF_DIR[$k]}"
  OFFSETS_JSON+=("{\"partition\":${OFF_PART[$k]},\"logDir\":$J,\"segments\":${OFF_SEGS[$k]},\"bytes\":${OFF_BYTES[$k]}")
  OFFSETS_DIR_OF[${OFF_PART[$k]}]=$k
done
[ ${#OFF_PART[@]} -ge $OFFSETS_PARTITIONS_MAX ] && warn "only the first $OFFSETS_PARTITIONS_MAX __consumer_offsets partitions are listed"

# ------------------------------------------------------------------ broker logs
# Chronological plan of (file, bytes) to read: the newest LOG_BYTES of
# server.log and its uncompressed rotations, oldest first, so that line
# numbers from grep -n give the order of events.
declare -A SIZE=()
BY_AGE=()
plan_logs() { # base budget -> STREAM ("first-byte bytes file", oldest first), BYTES_READ
  local base=$1 budget=$2 f take files=()
  [ -f "$base" ] && files+=("$base")
  for f in "${BY_AGE[@]}"; do [[ $f == "$base".* ]] && files+=("$f"); done
  STREAM=(); BYTES_READ=0
  for f in "${files[@]}"; do
    [ $budget -gt 0 ] && [ -n "${SIZE[$f]:-}" ] || continue
    take=${SIZE[$f]}; [ $take -gt $budget ] && take=$budget
    STREAM=("$((SIZE[$f] - take + 1)) $take $f" "${STREAM[@]}"); budget=$((budget - take)); BYTES_READ=$((BYTES_READ + take))
  done
}
stream() { # the planned byte windows: the read ends where the plan did
  local w from bytes
  for w; do
    from=${w%% *}; w=${w#* }; bytes=${w%% *}; w=${w#* }
    if [ $from = 1 ]; then t $LEFT head -c $bytes -- "$w" 2>/dev/null
    else t $LEFT tail -c +$from -- "$w" 2>/dev/null | t $LEFT head -c $bytes; fi
  done
}
SERVER_STREAM=(); CLEANER_STREAM=(); BYTES_READ=0
if [ -n "$LOGS_DIR" ] && [ -d "$LOGS_DIR" ]; then
  files=("$LOGS_DIR"/server.log.* "$LOGS_DIR"/log-cleaner.log.*)
  [ ${#files[@]} -gt 0 ] && mapfile -t files < <(ls -1t -- "${files[@]}" 2>/dev/null)
  for f in "${files[@]}"; do case "$f" in *.gz|*.xz|*.bz2|*.zst|*.zip) ;; *) BY_AGE+=("$f") ;; esac; done
  files=()
  for f in "$LOGS_DIR/server.log" "$LOGS_DIR/log-cleaner.log" "${BY_AGE[@]}"; do [ -f "$f" ] && files+=("$f"); done
  [ ${#files[@]} -gt 0 ] && split $'\n' "$(stat -c '%s %n' -- "${files[@]}" 2>/dev/null)"
  for l in "${PARTS[@]}"; do SIZE[${l#* }]=${l%% *}; done
  plan_logs "$LOGS_DIR/log-cleaner.log" "$CLEANER_LOG_BYTES"; CLEANER_STREAM=("${STREAM[@]}")
  plan_logs "$LOGS_DIR/server.log" "$LOG_BYTES"; SERVER_STREAM=("${STREAM[@]}")
  [ ${#STREAM[@]} = 0 ] && warn "no server.log in $LOGS_DIR"
else
  warn "log folder not found"
fi

# cutnum "n:text" MAX -> CUT: the text after grep's "n:" / "n-" prefix cut to MAX bytes.
cutnum() {
  local pre=${1%%[:-]*}
  CUT="${1:0:${#pre}+1}${1:${#pre}+1:$2}"
}

# Log line categories: name, log, lines after a match (grep -A), newest lines
# kept, fewest kept when the output must shrink ("-": not printed), and an ERE
# of literals starting with a letter, for 0.11 to 4.x (log-patterns.ts
# classifies the lines; probe-output.ts reads each name).
CAT_NAMES=(); declare -A CAT_SRC=() CAT_CTX=() CAT_CAP=() CAT_FLOOR=() CAT_PAT=() CAT_RAW=() CAT_KEPT=()
category() { CAT_NAMES+=("$1"); CAT_SRC[$1]=$2; CAT_CTX[$1]=$3; CAT_CAP[$1]=$4; CAT_FLOOR[$1]=$5; CAT_PAT[$1]=$6; }
P_CLEANER='as uncleanable|kafka-log-cleaner-thread-[0-9]+\]: Error due to|Failed to clean up log for'
# LogManager's own start/finish of log loading mark each broker start (all versions).
category lifecycle         server  0 8    3 'Loading logs|Logs loading complete in|Loaded [0-9]+ logs in '
category unclean           server  0 10   3 'since no clean shutdown file was found|since clean shutdown file was found'
category recovery          server  0 16   1 'Recovering unflushed segment|Found invalid offset during recovery|Corruption found in segment|Deleting all segments because logEndOffset'
category loadProgress      server  0 4    3 'Completed load of|Error while loading logs in'
category corruptIndex      server  0 15   1 'orrupted index file|Corrupt index found|Could not find offset index file|is corrupt, found [0-9]+ bytes'
category indexAppend       server  0 6    3 'Attempt to append an offset|Attempt to append a timestamp'
category cleaner           server  1 12   1 "$P_CLEANER"
category unsupported       server  0 10   1 'which is not enabled|Error getting request for apiKey|Error parsing request header|and unsupported version [0-9]|Received request for disabled api with key'
category offsetsLoadErrors server  0 8    1 'Error loading offsets from __consumer_offsets-|Failed to load metadata from __consumer_offsets-|Failed to complete the loading of metadata for __consumer_offsets-'
category offsetsLoad       server  0 4000 - '(Scheduling loading|Finished loading)( of)? (offsets and group metadata|metadata) from __consumer_offsets-[0-9]+'
category shutdown          server  0 6    2 '(KafkaServer|BrokerServer) id=[0-9]+\] (shutting down|shut down completed)|Kafka Server [0-9]+\], (shutting down|shut down completed)'
category cleanerLog        cleaner 1 24   0 "$P_CLEANER"

# scan LOG CATEGORY...: ONE grep for all, then pick. Only the newest SCAN_BYTES
# are kept (bash is slow per line); from a window that full, the categories
# short of their cap are scanned again.
SCAN_BYTES=$((1024 * 1024))
scan() {
  local log=$1 args=(-a -n -E) c ctx=0 full=0 again=(); shift
  for c in "$@"; do args+=(-e "${CAT_PAT[$c]}"); ctx=$((ctx | CAT_CTX[$c])); done
  [ $ctx = 1 ] && args+=(-A 1 --no-group-separator)
  left
  # ({} 2>: no warnings about NUL bytes)
  if [ $log = cleaner ]; then { OUT=$(stream "${CLEANER_STREAM[@]}" | t $LEFT grep "${args[@]}" | tail -c $SCAN_BYTES); } 2>/dev/null
  else { OUT=$(stream "${SERVER_STREAM[@]}" | t $LEFT grep "${args[@]}" | tail -c $SCAN_BYTES); } 2>/dev/null; fi
  # A full window may start inside a line.
  [ ${#OUT} -ge $((SCAN_BYTES - 1)) ] && OUT=${OUT#*$'\n'} && full=1
  # "<n>:<text>" for a match, "<n>-<text>" for the line after one
  local IFS=$'\n'; set -f; LINES=($OUT); set +f; unset IFS
  for c in "$@"; do
    pick "$c"
    [ $# -gt 1 ] && [ $full = 1 ] && [ ${CAT_KEPT[$c]} -lt ${CAT_CAP[$c]} ] && again+=("$c")
  done
  # (together while that leaves some out, else one by one)
  if [ ${#again[@]} -gt 0 ] && [ ${#again[@]} -lt $# ] && in_time; then scan $log "${again[@]}"; return; fi
  for c in "${again[@]}"; do
    if in_time; then scan $log "$c"; else SKIPPED+=("$c"); fi
  done
}
# pick CATEGORY -> CAT_RAW, CAT_KEPT: its newest lines as its own grep prints them.
pick() {
  local c=$1 pat=${CAT_PAT[$1]} j a got=() fwd=() raw
  CAT_KEPT[$c]=0; CAT_RAW[$c]=""
  [[ $OUT =~ $pat ]] || return 0
  for ((j = ${#LINES[@]} - 1; j >= 0 && ${#got[@]} < CAT_CAP[$c]; j--)); do
    [[ ${LINES[j]} =~ $pat ]] || continue
    # The line after a match, unless a match itself.
    a=${LINES[j + 1]:-}
    if [ ${CAT_CTX[$c]} = 1 ] && [ -n "$a" ] && [ $((${LINES[j]%%[:-]*} + 1)) = "${a%%[:-]*}" ] && ! [[ $a =~ $pat ]]; then
      got+=("${a%%[:-]*}-${a#*[:-]}")
    fi
    [ ${#got[@]} -lt ${CAT_CAP[$c]} ] && got+=("${LINES[j]}")
  done
  CAT_KEPT[$c]=${#got[@]}
  for ((j = ${#got[@]} - 1; j >= 0; j--)); do fwd+=("${got[j]}"); done
  printf -v raw '%s\n' "${fwd[@]}"; CAT_RAW[$c]=${raw%$'\n'}
}

SKIPPED=(); LEFT=1; server=(); cleaner=()
for c in "${CAT_NAMES[@]}"; do
  [ $c = offsetsLoad ] && [ ${#OFF_PART[@]} = 0 ] && continue
  [ ${CAT_SRC[$c]} = cleaner ] && cleaner+=("$c") || server+=("$c")
done
if [ ${#SERVER_STREAM[@]} -gt 0 ]; then
  if in_time; then scan server "${server[@]}"; else SKIPPED+=("${server[@]}"); fi
fi
[ ${#CLEANER_STREAM[@]} -gt 0 ] && in_time && scan cleaner "${cleaner[@]}"
[ ${#SKIPPED[@]} -gt 0 ] && warn "time budget spent: log scan skipped for ${SKIPPED[*]}"

# Latest load start/finish line per __consumer_offsets partition.
declare -A LOAD_START=() LOAD_FINISH=()
split $'\n' "${CAT_RAW[offsetsLoad]:-}"
for l in "${PARTS[@]}"; do
  [[ $l =~ __consumer_offsets-([0-9]+) ]] || continue
  cutnum "$l" "$LINE_MAX"
  case "$l" in
    *"Scheduling loading"*) LOAD_START[${BASH_REMATCH[1]}]=$CUT ;;
    *"Finished loading"*) LOAD_FINISH[${BASH_REMATCH[1]}]=$CUT ;;
  esac
done

# ------------------------------------------------------------------ assemble
lines_json() { # raw (newline separated) cap maxlen -> J (newest kept)
  local raw=$1 cap=$2 max=$3 arr=() l
  if [ -n "$raw" ] && [ "$cap" -gt 0 ]; then
    split $'\n' "$raw"; arr=("${PARTS[@]}")
    if [ ${#arr[@]} -gt "$cap" ]; then arr=("${arr[@]: -$cap}"); fi
    local cut=()
    for l in "${arr[@]}"; do cutnum "$l" "$max"; cut+=("$CUT"); done
    jarr "${cut[@]}"
  else
    J="[]"
  fi
}

build() { # scale(0..4) -> DOC
  local scale=$1 max=$LINE_MAX div=1 o c
  case "$scale" in 1) div=2; max=320 ;; 2) div=4; max=240 ;; 3) div=8; max=200 ;; 4) div=0; max=200 ;; esac
  o="{\"probeVersion\":1"
  jstr "$HOSTNAME_V"; o+=",\"hostname\":$J"
  jnum_or_null "$BROKER_ID"; o+=",\"brokerId\":$J"
  jstr "$COLLECTED_AT"; o+=",\"collectedAt\":$J"
  o+=",\"probeDurationMs\":$DURATION_MS"
  jstr_or_null "$KAFKA_VERSION"; o+=",\"kafkaVersion\":$J"
  if [ -n "$PID" ]; then o+=",\"process\":{\"running\":true,\"pid\":$PID"; else o+=",\"process\":{\"running\":false,\"pid\":null"; fi
  jstr_or_null "$STARTED_AT"; o+=",\"startedAt\":$J"
  jstr_or_null "$CONFIG_PATH"; o+=",\"configPath\":$J"
  jstr_or_null "$LOGS_DIR"; o+=",\"logsDir\":$J}"
  join_comma "${LOGDIR_JSON[@]}"; o+=",\"logDirs\":[$J]"
  # __consumer_offsets partitions with their latest load lines; from scale 1
  # the start line of a finished load goes (the finish line says it all).
  local parts=() i n e s f
  for n in "${!OFFSETS_DIR_OF[@]}"; do
    i=${OFFSETS_DIR_OF[$n]}; e=${OFFSETS_JSON[$i]}
    s=${LOAD_START[$n]:-}; f=${LOAD_FINISH[$n]:-}
    if [ "$scale" -ge 1 ] && [ -n "$s" ] && [ -n "$f" ] && [ "${f%%:*}" -gt "${s%%:*}" ]; then s=""; fi
    if [ -n "$s" ]; then cutnum "$s" "$max"; s=$CUT; fi
    if [ -n "$f" ]; then cutnum "$f" "$max"; f=$CUT; fi
    jstr_or_null "$s"; e+=",\"lastLoadStart\":$J"
    jstr_or_null "$f"; e+=",\"lastLoadFinish\":$J}"
    parts+=("$e")
  done
  join_comma "${parts[@]}"; o+=",\"consumerOffsets\":[$J]"
  o+=",\"logs\":{"
  jarr "${SERVER_STREAM[@]#* * }"; o+="\"files\":$J,\"bytesRead\":$BYTES_READ"
  for c in "${CAT_NAMES[@]}"; do
    local floor=${CAT_FLOOR[$c]}
    [ "$floor" = - ] && continue
    local cap=$(( div == 0 ? 0 : CAT_CAP[$c] / div ))
    # (Recovery decisions rest on lifecycle lines and the fatal error; one line proves a signal.)
    [ $cap -lt "$floor" ] && cap=$floor
    lines_json "${CAT_RAW[$c]:-}" "$cap" "$max"; o+=",\"$c\":$J"
  done
  o+="}"
  o+=",\"limits\":{"
  jnum_or_null "$OPEN_FDS"; o+="\"openFds\":$J"
  if [ "$MAX_FDS" = unlimited ]; then o+=",\"maxFds\":null"; else jnum_or_null "$MAX_FDS"; o+=",\"maxFds\":$J"; fi
  jnum_or_null "$MAP_COUNT"; o+=",\"mapCount\":$J"
  jnum_or_null "$MAX_MAP_COUNT"; o+=",\"maxMapCount\":$J}"
  if [ -n "$SYSTEMD_UNIT" ]; then
    jstr "$SYSTEMD_UNIT"; o+=",\"systemd\":{\"unit\":$J"
    jstr_or_null "${SD[ActiveState]:-}"; o+=",\"activeState\":$J"
    jstr_or_null "${SD[TimeoutStopUSec]:-}"; o+=",\"timeoutStopUSec\":$J"
    jnum_or_null "${SD[NRestarts]:-}"; o+=",\"nRestarts\":$J"
    jnum_or_null "${SD[ExecMainStatus]:-}"; o+=",\"execMainStatus\":$J"
    jstr_or_null "${SD[ExecMainCode]:-}"; o+=",\"execMainCode\":$J"
    local jl=() l jcap=$(( scale >= 3 ? 4 : 12 )) jfrom=0
    [ ${#JOURNAL[@]} -gt $jcap ] && jfrom=$(( ${#JOURNAL[@]} - jcap ))
    for l in "${JOURNAL[@]:$jfrom}"; do jl+=("${l:0:$max}"); done
    jarr "${jl[@]}"; o+=",\"journalTail\":$J}"
  else
    o+=",\"systemd\":null"
  fi
  local w=("${WARNINGS[@]}")
  [ "$scale" -gt 0 ] && w+=("output shortened to fit 24,000 characters (level $scale)")
  jarr "${w[@]}"; o+=",\"warnings\":$J}"
  DOC=$o
}

HOSTNAME_V=""
read -r HOSTNAME_V 2>/dev/null < /proc/sys/kernel/hostname
[ -n "$HOSTNAME_V" ] || HOSTNAME_V=${HOSTNAME:-unknown}
utc_iso -1; COLLECTED_AT=$ISO
now_ms; DURATION_MS=$(( NOW_MS - PROBE_START_MS ))
for scale in 0 1 2 3 4; do
  build "$scale"
  [ ${#DOC} -le $MAX_OUTPUT ] && break
done
if [ ${#DOC} -gt $MAX_OUTPUT ]; then
  # Still too big (hundreds of log dirs?): say so in a document that parses.
  LOGDIR_JSON=(); OFFSETS_DIR_OF=(); warn "log dir and __consumer_offsets details dropped: output too large"
  build 4
fi
printf '%s\n' "$DOC"
