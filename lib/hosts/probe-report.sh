# Host probe, part 4 of 4 (after probe-logs.sh; joined by lib/hosts/scripts.ts):
# the host, process and systemd records, then every record in priority order.

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
  # A whole priority at once while it fits (the usual case), record by record once it does not.
  printf -v all '%s\n' "${list[@]}"
  if [ ${#list[@]} -gt 0 ] && { [ $p = 0 ] || [ $((size + ${#all})) -le $MAX_OUTPUT ]; }; then OUT+=("${list[@]}"); size=$((size + ${#all}))
  else
    for r in "${list[@]}"; do
      if [ $((size + ${#r} + 1)) -le $MAX_OUTPUT ]; then OUT+=("$r"); size=$((size + ${#r} + 1)); else dropped=$((dropped + 1)); fi
    done
  fi
  unset -n list
done
OUT+=("end"$'\t'"left-out"$'\t'"$dropped")
printf '%s\n' "${OUT[@]}"
