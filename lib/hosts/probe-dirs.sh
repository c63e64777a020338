# Host probe, part 2 of 4 (after probe.sh, before probe-logs.sh; lib/hosts/scripts.ts
# joins the parts into the one script each SSM document carries): the log dirs
# (df, partition dirs, __consumer_offsets) and one stat for every file size.

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
