# Host probe, part 3 of 4 (after probe-dirs.sh, before probe-report.sh; joined by
# lib/hosts/scripts.ts): the broker logs, read in one pass for every log line category.

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
# (grep -F finds those at memory speed; awk then applies the ERE). Each fixed
# string starts with an upper-case letter, rare in Kafka's logs: grep -F tries
# its patterns wherever one of their first bytes is, and a set whose first
# bytes were common (" logs in ", "as uncleanable", "metadata from", "shutting
# down") read 8 MB of logs in 16 to 29 ms of CPU, against 6 so.
CAT_NAMES=(); declare -A CAT_SRC=() CAT_CTX=() CAT_CAP=() CAT_FLOOR=() CAT_PAT=() CAT_FIXED=()
category() { CAT_NAMES+=("$1"); CAT_SRC[$1]=$2; CAT_CTX[$1]=$3; CAT_CAP[$1]=$4; CAT_FLOOR[$1]=$5; CAT_PAT[$1]=$6; CAT_FIXED[$1]=$7; }
P_CLEANER='Marking its partition \([^)]*\) as uncleanable|kafka-log-cleaner-thread-[0-9]+\]: Error due to|Failed to clean up log for'
F_CLEANER='Marking its partition|Error due to|Failed to clean up log for'
# LogManager's own start/finish of log loading mark each broker start (all versions).
category lifecycle         server  0 8    3 'Loading logs|Logs loading complete in|Loaded [0-9]+ logs in ' 'Loading logs|Logs loading complete in|Loaded '
category unclean           server  0 10   3 '(Attempting recovery for all logs in|Recovering [0-9]+ logs from|Skipping recovery for all logs in|Skipping recovery of [0-9]+ logs from) .* since (no )?clean shutdown file was found' 'Attempting recovery for all logs in|Recovering |Skipping recovery '
category recovery          server  0 16   1 'Recovering unflushed segment|Found invalid offset during recovery|Corruption found in segment|Deleting all segments because logEndOffset' 'Recovering unflushed segment|Found invalid offset during recovery|Corruption found in segment|Deleting all segments because logEndOffset'
category loadProgress      server  0 4    3 'Completed load of|Error while loading logs in' 'Completed load of|Error while loading logs in'
category corruptIndex      server  0 15   1 'Found a corrupted index file|Corrupt index found|Could not find offset index file|Index file [^ ]+ is corrupt, found [0-9]+ bytes' 'Found a corrupted index file|Corrupt index found|Could not find offset index file|Index file '
category indexAppend       server  0 6    3 'Attempt to append an offset|Attempt to append a timestamp' 'Attempt to append a'
category cleaner           server  1 12   1 "$P_CLEANER" "$F_CLEANER"
category unsupported       server  0 10   1 'Received request api key .*which is not enabled|Error getting request for apiKey|Error parsing request header|Received request for api with key .* and unsupported version [0-9]|Received request for disabled api with key' 'Received request |Error getting request for apiKey|Error parsing request header'
category offsetsLoadErrors server  0 8    1 'Error loading offsets from __consumer_offsets-|Failed to load metadata from __consumer_offsets-|Failed to complete the loading of metadata for __consumer_offsets-' 'Error loading offsets from __consumer_offsets-|Failed to load metadata from __consumer_offsets-|Failed to complete the loading of metadata for __consumer_offsets-'
category offsetsLoad       server  0 4000 - '(Scheduling loading|Finished loading)( of)? (offsets and group metadata|metadata) from __consumer_offsets-[0-9]+' 'Scheduling loading|Finished loading'
category shutdown          server  0 6    2 '(KafkaServer|BrokerServer) id=[0-9]+\] (shutting down|shut down completed)|Kafka Server [0-9]+\], (shutting down|shut down completed)' 'KafkaServer id=|BrokerServer id=|Kafka Server '
category cleanerLog        cleaner 1 24   0 "$P_CLEANER" "$F_CLEANER"

grep_fixed() { grep -a -b -H -F -A 1 --no-group-separator "${fixed[@]}" "$@"; }
# scan: grep for the fixed strings over the planned windows of both logs,
# oldest first, each line prefixed with its file and its byte offset in its
# window ("<file>:<offset>:<line>", "<file>-<offset>-<line>" for the line after
# a match). grep reads the files itself: a pipe from tail or head cost a copy
# of every byte (10 ms for 7 MB). One grep reads a rotated log's window (from
# its standard input, moved to the window's first byte by dd) and the whole
# files after it: a process less per host.
scan() {
  local w from bytes whole=() first=""
  scan_grep() { # the window held in $first (if any), then the whole files so far
    if [ -n "$first" ]; then
      local from=${first%% *} f=${first#* }
      { if dd iflag=skip_bytes skip=$((from - 1)) count=0 status=none 2>/dev/null; then grep_fixed --label="$f" -- - "${whole[@]}"
        else tail -c +$from -- "$f" | grep_fixed --label="$f" -- - "${whole[@]}"; fi; } < "$f"
    elif [ ${#whole[@]} -gt 0 ]; then
      grep_fixed -- "${whole[@]}"
    fi
    first=""; whole=()
  }
  for w; do
    from=${w%% *}; w=${w#* }; bytes=${w%% *}; w=${w#* }
    if [ "$from" = 1 ]; then whole+=("$w"); continue; fi
    scan_grep
    # A window that starts inside its file: the oldest of a plan.
    case "$w" in
      # A live log may have grown since it was measured: its read stops at the plan's end.
      */server.log|*/log-cleaner.log) tail -c +$from -- "$w" | head -c $bytes | grep_fixed --label="$w" ;;
      # A rotated one has not, and the window ends at its end.
      *) first="$from $w" ;;
    esac
  done
  scan_grep
  return 0
}
# The selection, in one pass: for each category the newest lines up to its
# cap, each match preceded by the line after it where the category asks for
# that (unless that line is itself a match), as `grep -A 1` of the category's
# own ERE alone would give them; and each __consumer_offsets partition's latest
# load start and finish. Each line is numbered by its byte offset in its log's
# stream (the windows of server.log and its rotations, oldest first; the
# cleaner log's apart): the numbers order the lines. KR_WINDOWS names the
# windows in scan's order: "<log>\t<offset of the window in its stream>\t<bytes>\t<file>".
# Prints "<priority>\t<category>\t<key>\t<n>:<line>" (or "<n>-<line>").
SELECT='
BEGIN {
  nc = split(ENVIRON["KR_CATS"], defs, "\n")
  for (i = 1; i <= nc; i++) {
    split(defs[i], f, "\t"); name[i] = f[1]; src[i] = f[2]; ctx[i] = f[3] + 0; cap[i] = f[4] + 0; fl[i] = f[5]; pat[i] = f[6]
    if (fl[i] == "-") offsets = i
  }
  nw = split(ENVIRON["KR_WINDOWS"], wins, "\n")
  for (j = 1; j <= nw; j++) { split(wins[j], f, "\t"); wsrc[j] = f[1]; wbase[j] = f[2] + 0; wlen[j] = f[3] + 0; wfile[j] = f[4]; wfl[j] = length(f[4]) }
  max = ENVIRON["KR_LINE_MAX"] + 0; w = 1
}
{
  # Whose line: the current window or a later one (a window without a match prints nothing).
  for (j = w; j <= nw; j++) if (substr($0, 1, wfl[j]) == wfile[j] && match(substr($0, wfl[j] + 1), /^[:-][0-9]+[:-]/)) break
  if (j > nw) next
  w = j; off = substr($0, wfl[w] + 2, RLENGTH - 2) + 0; text = substr($0, wfl[w] + RLENGTH + 1)
  # What a live log gained after it was measured is past the plan: not read.
  if (off >= wlen[w]) next
  n = wbase[w] + off; source = wsrc[w]
  # A line grep printed only as the line after a match holds none of the fixed
  # strings, so it matches no category pattern: it is only checked as a line after.
  if (substr($0, wfl[w] + 1, 1) == "-") {
    for (i = 1; i <= nc; i++) if (src[i] == source) { if (ctx[i] && pend[i] == n) ctxline[i, m[i]] = n "-" text; pend[i] = -9 }
    next
  }
  for (i = 1; i <= nc; i++) {
    if (src[i] != source) continue
    hit = (text ~ pat[i])
    if (ctx[i] && pend[i] == n && !hit) ctxline[i, m[i]] = n "-" text
    pend[i] = -9
    if (!hit) continue
    k = ++m[i]
    line[i, k] = n ":" text
    # The line after this one starts where this one ends.
    if (ctx[i]) pend[i] = n + length(text) + 1
    # A ring of the newest cap matches (each brings its line after, if any).
    if (k > cap[i]) { delete line[i, k - cap[i]]; delete ctxline[i, k - cap[i]] }
  }
}
# "<n>:<text>" / "<n>-<text>" with the text cut to max bytes, and written as a
# record value (backslash, tab and carriage return as \\ \t \r; see rec).
function cut(l,   s, out, i, c) {
  match(l, /^[0-9]+[:-]/)
  s = substr(l, 1, RLENGTH) substr(l, RLENGTH + 1, max)
  if (s !~ /[\\\t\r]/) return s
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == "\\") c = "\\\\"; else if (c == "\t") c = "\\t"; else if (c == "\r") c = "\\r"
    out = out c
  }
  return out
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
SKIPPED=(); cats=(); fixed=()
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
  local fd w log base windows=""
  # Each planned window ("<from> <bytes> <file>") after its log's name: the table scan's lines are numbered by.
  for w in server "${SERVER_STREAM[@]}" cleaner "${CLEANER_STREAM[@]}"; do
    case "$w" in
      server|cleaner) log=$w; base=0 ;;
      *) w=${w#* }; windows+="$log"$'\t'"$base"$'\t'"${w%% *}"$'\t'"${w#* }"$'\n'; base=$((base + ${w%% *})) ;;
    esac
  done
  # Its stderr is not the probe's: a scan left behind at its deadline holds none of the probe's output open.
  exec {fd}< <(
    exec 2>/dev/null
    scan "${SERVER_STREAM[@]}" "${CLEANER_STREAM[@]}" |
      KR_CATS=${KR_CATS%$'\n'} KR_WINDOWS=${windows%$'\n'} KR_LINE_MAX=$LINE_MAX awk "$SELECT"
  )
  bulk SELECTED "$LEFT" "$fd" || warn "time budget spent: log scan stopped at its deadline"
  exec {fd}<&-
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
    # awk's lines are records already, after their priority.
    split $'\n' "$SELECTED"
    for l in "${PARTS[@]}"; do
      case "$l" in
        1$'\t'*) R1+=("${l#?$'\t'}") ;; 2$'\t'*) R2+=("${l#?$'\t'}") ;; 3$'\t'*) R3+=("${l#?$'\t'}") ;; 4$'\t'*) R4+=("${l#?$'\t'}") ;;
      esac
    done
  else
    for c in "${CAT_NAMES[@]}"; do [ ${CAT_SRC[$c]} = server ] && { [ $c != offsetsLoad ] || [ ${#OFF_PART[@]} -gt 0 ]; } && SKIPPED+=("$c"); done
    [ ${#SERVER_STREAM[@]} -gt 0 ] && warn "time budget spent: log scan skipped for ${SKIPPED[*]}"
  fi
fi
for w in "${SERVER_STREAM[@]}"; do rec 0 logs file "${w#* * }"; done
rec 0 logs bytesRead "$BYTES_READ"
