#!/usr/bin/env bash
# kafka-responder: how much of one partition this broker host holds (read-only).
# usage: <kafka-bin-dir> <topic> <partition> <log-dir>...
set -u
die() { echo "kr-error: $*" >&2; exit 64; }
[ "$#" -ge 4 ] || die "usage: <kafka-bin-dir> <topic> <partition> <log-dir>..."
bin=$1; topic=$2; partition=$3; shift 3
case "$bin" in /*) ;; *) die "kafka bin dir must be an absolute path" ;; esac
case "$topic" in '' | . | .. | *[!A-Za-z0-9._-]*) die "bad topic name" ;; esac
case "$partition" in '' | *[!0-9]*) die "bad partition" ;; esac
for d in "$@"; do case "$d" in /*) ;; *) die "log dirs must be absolute paths" ;; esac; done

found=''; logdir=''
for d in "$@"; do
  if [ -d "$d/$topic-$partition" ]; then found="$d/$topic-$partition"; logdir=$d; break; fi
done
if [ -z "$found" ]; then echo '{"found":false}'; exit 0; fi

size=0; last=''
for f in "$found"/*.log; do
  [ -e "$f" ] || continue
  s=$(wc -c < "$f"); size=$((size + s)); last=$f
done
hw=$(awk -v t="$topic" -v p="$partition" '$1 == t && $2 == p { v = $3 } END { if (v != "") print v }' "$logdir/replication-offset-checkpoint" 2>/dev/null)
leo=''; leo_source='none'; markers=''; open=''
if [ -n "$last" ]; then
  base=$(basename "$last" .log); base=$((10#$base))
  if [ -x "$bin/kafka-dump-log.sh" ]; then
    # One pass over the last segment's batch headers: its last offset, and its transactions
    # (the COMMIT/ABORT markers are control batches; a producer's data after its last marker is open).
    dump=$("$bin/kafka-dump-log.sh" --files "$last" 2>/dev/null | awk '
      /lastOffset:/ {
        b = ""; l = ""; p = ""; tx = ""; ctl = ""
        for (i = 1; i < NF; i++) {
          if ($i == "baseOffset:") b = $(i + 1); else if ($i == "lastOffset:") l = $(i + 1)
          else if ($i == "producerId:") p = $(i + 1); else if ($i == "isTransactional:") tx = $(i + 1)
          else if ($i == "isControl:") ctl = $(i + 1)
        }
        if (l != "") v = l
        if (tx != "true" || p !~ /^[0-9]+$/ || b !~ /^[0-9]+$/) next
        if (ctl == "true") { delete first[p]; m[n++ % 50] = p " " b } else if (!(p in first)) first[p] = b
      }
      END {
        if (v != "") print "KR_LAST " v
        for (k = (n > 50 ? n - 50 : 0); k < n; k++) print "KR_MARK " m[k % 50]
        c = 0; for (p in first) if (c++ < 20) print "KR_OPEN " p " " first[p]
      }')
    lastoff=$(printf '%s\n' "$dump" | awk '$1 == "KR_LAST" { print $2 }')
    markers=$(printf '%s\n' "$dump" | awk '$1 == "KR_MARK" { printf "%s{\"producerId\":%s,\"offset\":%s}", s, $2, $3; s = "," }')
    open=$(printf '%s\n' "$dump" | awk '$1 == "KR_OPEN" { printf "%s{\"producerId\":%s,\"firstOffset\":%s}", s, $2, $3; s = "," }')
    case "$lastoff" in
      '' ) leo=$base; leo_source='empty-segment' ;;
      *[!0-9]*) ;;
      *) leo=$((lastoff + 1)); leo_source='kafka-dump-log' ;;
    esac
  fi
fi
printf '{"found":true,"dir":"%s","sizeBytes":%s,"logEndOffset":%s,"checkpointedHighWatermark":%s,"leoSource":"%s","lastSegmentTransactions":{"markers":[%s],"open":[%s]}}\n' \
  "$found" "$size" "${leo:-null}" "${hw:-null}" "$leo_source" "$markers" "$open"
