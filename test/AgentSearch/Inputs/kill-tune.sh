#!/usr/bin/env bash
# kill-tune.sh SIGNAL INT21_KB KB LOG WORKDIR -- COMMAND...: runs COMMAND (a
# search tuning into KB, its temporary files under WORKDIR) in the
# background, waits until KB holds a record, sends the search SIGNAL (KILL,
# INT, TERM...) and prints what was left:
# "SIGNAL after N records: exit E, C children left, D working directories left".
set -u
signal="$1"
int21_kb="$2"
kb="$3"
log="$4"
workdir="$5"
shift 6
"$@" >"$log" 2>&1 &
pid=$!
records=0
for _ in $(seq 600); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "the search ended before a record was stored"
    exit 1
  fi
  if [ -f "$kb" ]; then
    records=$("$int21_kb" list --kb "$kb" 2>/dev/null | sed -n 's/^\([0-9]*\) records\{0,1\} in .*/\1/p')
    [ "${records:-0}" -ge 1 ] && break
  fi
  sleep 0.1
done
kill "-$signal" "$pid"
wait "$pid"
status=$?
# The children's command lines name the search's working directory.
children=$(pgrep -f -- "$workdir/int21-tune-" | wc -l)
directories=$(find "$workdir" -maxdepth 1 -name 'int21-tune-*' | wc -l)
echo "$signal after ${records:-0} records: exit $status, $children children left, $directories working directories left"
