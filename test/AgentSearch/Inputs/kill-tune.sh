#!/usr/bin/env bash
# kill-tune.sh INT21_KB KB LOG -- COMMAND...: runs COMMAND (a search tuning into KB)
# in the background, waits until KB holds a record, kills the search with
# SIGKILL and prints what int21-kb saw then: "killed with N records".
set -u
int21_kb="$1"
kb="$2"
log="$3"
shift 4
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
kill -KILL "$pid"
wait "$pid" 2>/dev/null
echo "killed with ${records:-0} records"
