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
# Reads "<dir>/<name>/" lines (partition dirs) and "<dir>/<name>/<file>.log" lines (their
# segments), in the globs' order; prints the first `max` dirs without a segment (N name),
# the first `room` __consumer_offsets partitions (O partition segments dir, then
# F segment for each), and the counts last (C partitionDirs withoutSegments).
# Partition dirs are <topic>-<number>: *-delete, *-future, *-stray are not counted.
PARTITION_DIRS_AWK='
  /\/$/ { d = substr($0, 1, length($0) - 1); name = d; sub(/.*\//, "", name)
          if (name !~ /^.+-[0-9]+$/) next
          dirs[++nd] = d; names[d] = name; next }
  /\.log$/ { d = $0; sub(/\/[^\/]*$/, "", d); segs[d]++
             if (d ~ /\/__consumer_offsets-[0-9]+$/) files[d] = files[d] "F " $0 "\n" }
  END {
    nos = 0; off = 0
    for (i = 1; i <= nd; i++) {
      d = dirs[i]; name = names[d]; c = (d in segs) ? segs[d] : 0
      if (c == 0 && ++nos <= max) print "N " name
      if (name ~ /^__consumer_offsets-[0-9]+$/ && off < room) {
        off++; n = name; sub(/.*-/, "", n)
        printf "O %s %d %s\n%s", n, c, d, files[d]
      }
    }
    print "C " nd " " nos
  }'
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

  # The partition dirs and their segments from two globs and one awk: a bash loop with
  # a glob per partition dir cost about 30 us each, 100 ms a host at 3,000 partitions.
  parts=0; nosegc=0; listing=""
  exec {fd}< <(exec 2>/dev/null; printf '%s\n' "$dir"/*-[0-9]*/ "$dir"/*-[0-9]*/*.log |
    awk -v max="$NOSEG_LIST_MAX" -v room=$((OFFSETS_PARTITIONS_MAX - ${#OFF_PART[@]})) "$PARTITION_DIRS_AWK")
  bulk listing 10 "$fd" || warn "listing the partition dirs of $dir took over 10 s"
  exec {fd}<&-
  split $'\n' "$listing"
  for l in "${PARTS[@]}"; do
    case $l in
      "N "*) rec 2 noSegments "$di" "${l#N }" ;;
      "C "*) l=${l#C }; parts=${l% *}; nosegc=${l#* } ;;
      "O "*) # O <partition> <segments> <dir>, then F <segment> for each of its segments
        l=${l#O }; n=${l%% *}; l=${l#* }; k=${#OFF_PART[@]}
        OFF_PART+=("$n"); OFF_DIRI+=("$di"); OFF_SEGS+=("${l%% *}"); OFF_BYTES+=(0)
        # (The same partition in two dirs: the last one listed is reported.)
        OFFSETS_AT[$n]=$k; SIZE_OWNER[${l#* }]=$k ;;
      "F "*) SIZE_FILES+=("${l#F }") ;;
    esac
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
  local out="" l rest name fd
  exec {fd}< <(exec 2>/dev/null; TZ=UTC0 stat -c '%s %y %n' -- "$@")
  bulk out 10 "$fd" || { exec {fd}<&-; return 1; }
  exec {fd}<&-
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
