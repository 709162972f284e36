#!/usr/bin/env bash
# Stops what `npm run up` started: the API, the worker and, only if up.sh started it, Redis.
# Each process is found through its pidfile in var/run/ and gets SIGTERM, then SIGKILL after 15 s.
#
#   npm run down                  # api, worker, redis
#   bash scripts/down.sh api      # only the named ones (api, worker, redis)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUN_DIR=var/run
STOP_TIMEOUT=${STOP_TIMEOUT:-15}

say() { printf '==> %s\n' "$*"; }

# Is the pid alive and still the program we started (not a recycled pid)?
is_ours() {
  local name=$1 pid=$2 cmdline
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  [[ -r /proc/$pid/cmdline ]] || return 0 # no procfs: trust the pidfile
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
  case $name in
    redis) [[ $cmdline == *redis-server* ]] ;;
    *) [[ $cmdline == *"dist/apps/$name/main.js"* ]] ;;
  esac
}

stop() {
  local name=$1 pidfile="$RUN_DIR/$1.pid" pid waited=0
  [[ -f $pidfile ]] || return 0
  pid=$(tr -dc '0-9' <"$pidfile" || true)
  if [[ -n $pid ]] && is_ours "$name" "$pid"; then
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null && ((waited < STOP_TIMEOUT * 10)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "$name did not stop within ${STOP_TIMEOUT}s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  rm -f "$pidfile"
}

targets=("$@")
((${#targets[@]})) || targets=(api worker redis)
for name in "${targets[@]}"; do
  case $name in
    api | worker | redis) stop "$name" ;;
    *)
      echo "down: unknown process '$name' (expected api, worker or redis)" >&2
      exit 2
      ;;
  esac
done
