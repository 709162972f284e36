#!/usr/bin/env bash
# `npm run up`: install, find or start Redis, build, then (re)start the API and the worker in the
# background and wait until both are ready. Safe to run again: it restarts onto a fresh build.
# Logs go to var/log/, pidfiles to var/run/; `npm run down` stops everything.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)

PORT=${PORT:-8000}
HOST=${HOST:-0.0.0.0}
# With REDIS_SENTINELS the apps find Redis through the sentinels (docs/redis.md): up.sh starts no Redis then
if [[ -z ${REDIS_SENTINELS:-} ]]; then
  REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
  export REDIS_URL
fi
READY_TIMEOUT=${READY_TIMEOUT:-60}
export PORT HOST

LOG_DIR=var/log
RUN_DIR=var/run
mkdir -p "$LOG_DIR" "$RUN_DIR" var/redis

say() { printf '==> %s\n' "$*"; }
die() {
  printf 'up: error: %s\n' "$*" >&2
  exit 1
}
show_log() {
  local file=$1 lines=${2:-30}
  if [[ ! -s $file ]]; then
    printf -- '----- %s is empty -----\n' "$file" >&2
    return 0
  fi
  printf -- '----- last %s lines of %s -----\n' "$lines" "$file" >&2
  tail -n "$lines" "$file" >&2
  printf -- '-----\n' >&2
}

# ---------------------------------------------------------------- dependencies
[[ $PORT =~ ^[0-9]+$ ]] || die "PORT must be a number (got '$PORT')"
command -v node >/dev/null || die "node is not installed: install Node.js 20 (with npm) first"
command -v npm >/dev/null || die "npm is not installed: install Node.js 20 (with npm) first"
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 20)) || die "Node.js 20 or newer is required (found $(node -v))"

# npm writes node_modules/.package-lock.json on every install; compare against it when present.
deps_stamp=node_modules/.package-lock.json
[[ -e $deps_stamp ]] || deps_stamp=node_modules
if [[ ! -d node_modules || package-lock.json -nt $deps_stamp ]]; then
  say "installing dependencies (log: $LOG_DIR/npm-install.log)"
  # Not `npm ci`: npm 11 refuses a lockfile without other platforms' optional packages, which this machine's
  # registry does not serve. `npm install --no-save` installs the locked versions and leaves the lockfile alone.
  if ! npm install --no-save --include=dev --no-audit --no-fund >"$LOG_DIR/npm-install.log" 2>&1; then
    show_log "$LOG_DIR/npm-install.log" 40
    die "npm install failed (full log: $LOG_DIR/npm-install.log)"
  fi
else
  say "dependencies are up to date"
fi

# ---------------------------------------------------------------- redis
# redis[s]://[user[:password]@]host[:port][/db]
parse_redis_url() {
  local rest=${REDIS_URL#*://} auth=
  REDIS_SCHEME=${REDIS_URL%%://*}
  rest=${rest%%/*}
  rest=${rest%%\?*}
  if [[ $rest == *@* ]]; then
    auth=${rest%@*}
    rest=${rest##*@}
  fi
  REDIS_USER=${auth%%:*}
  # the apps take REDIS_PASSWORD over the URL's password: so does the Redis started here
  REDIS_START_PASSWORD=${REDIS_PASSWORD:-}
  [[ -z $REDIS_START_PASSWORD && $auth == *:* ]] && REDIS_START_PASSWORD=${auth#*:}
  if [[ $rest == \[* ]]; then # [ipv6]:port
    REDIS_HOST=${rest%%]*}
    REDIS_HOST=${REDIS_HOST#[}
    rest=${rest#*]}
    REDIS_PORT=${rest#:}
  elif [[ $rest == *:* ]]; then
    REDIS_HOST=${rest%%:*}
    REDIS_PORT=${rest#*:}
  else
    REDIS_HOST=$rest
    REDIS_PORT=
  fi
  REDIS_HOST=${REDIS_HOST:-127.0.0.1}
  REDIS_PORT=${REDIS_PORT:-6379}
  [[ $REDIS_SCHEME == redis || $REDIS_SCHEME == rediss ]] || die "REDIS_URL must start with redis:// or rediss:// (got '$REDIS_URL')"
  [[ $REDIS_PORT =~ ^[0-9]+$ ]] || die "cannot read a port from REDIS_URL '$REDIS_URL'"
}

# 0: a Redis answers; 1: nothing listens; 2: something listens but does not speak Redis.
# shellcheck disable=SC2016 # the inner bash expands $1/$2
redis_probe() {
  local rc=0
  if [[ $REDIS_SCHEME == rediss ]]; then # TLS: a TCP connect is all bash can check
    timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$REDIS_HOST" "$REDIS_PORT" 2>/dev/null || return 1
    return 0
  fi
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/$1/$2" || exit 10
    printf "PING\r\n" >&3
    IFS= read -r -t 2 reply <&3 || exit 11
    case $reply in "+PONG"* | "-NOAUTH"*) exit 0 ;; *) exit 11 ;; esac
  ' _ "$REDIS_HOST" "$REDIS_PORT" 2>/dev/null || rc=$?
  case $rc in
    0) return 0 ;;
    10 | 124) return 1 ;; # refused, or the connect timed out
    *) return 2 ;;
  esac
}

redis_pid_alive() {
  local pid
  [[ -f $RUN_DIR/redis.pid ]] || return 1
  pid=$(tr -dc '0-9' <"$RUN_DIR/redis.pid" || true)
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null
}

install_redis() {
  local apt=(apt-get -y -qq -o Dpkg::Use-Pty=0)
  command -v apt-get >/dev/null ||
    die "redis-server is not installed and this is not a Debian/Ubuntu system: install Redis 6+ (or set REDIS_URL to a reachable Redis) and run again"
  if [[ $(id -u) -eq 0 ]]; then
    say "installing redis-server (apt-get, log: $LOG_DIR/apt.log)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install redis-server libjemalloc2; } >"$LOG_DIR/apt.log" 2>&1 ||
      { show_log "$LOG_DIR/apt.log"; die "installing redis-server failed"; }
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    say "installing redis-server (sudo apt-get, log: $LOG_DIR/apt.log)"
    { sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install redis-server libjemalloc2; } \
      >"$LOG_DIR/apt.log" 2>&1 || { show_log "$LOG_DIR/apt.log"; die "installing redis-server failed"; }
  else
    die "redis-server is not installed and I cannot install it without root. Run: sudo apt-get install -y redis-server   (or set REDIS_URL to a reachable Redis) and then npm run up again"
  fi
  command -v redis-server >/dev/null || die "redis-server is still not on PATH after installing it"
}

start_redis() {
  local args waited=0
  case $REDIS_HOST in
    127.0.0.1 | localhost) ;;
    *) die "the Redis configured in REDIS_URL ($REDIS_HOST:$REDIS_PORT) is unreachable; start it or point REDIS_URL at a running Redis" ;;
  esac
  [[ $REDIS_SCHEME == redis ]] || die "nothing answers at $REDIS_URL and up.sh can only start a plain (non-TLS) Redis; use redis://"
  [[ -z $REDIS_USER || $REDIS_USER == default ]] ||
    die "nothing answers at $REDIS_HOST:$REDIS_PORT and up.sh cannot create the Redis ACL user '$REDIS_USER'; start that Redis yourself"
  command -v redis-server >/dev/null || install_redis
  # the packaged service may have started on install
  if redis_probe; then
    say "Redis answers at $REDIS_HOST:$REDIS_PORT"
    return 0
  fi
  say "starting redis-server on 127.0.0.1:$REDIS_PORT (data: var/redis, log: $LOG_DIR/redis.log)"
  # the settings under which Redis keeps the jobs (docs/redis.md#durability)
  args=(--port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --appendonly yes --appendfsync everysec
    --maxmemory-policy noeviction
    --dir "$ROOT/var/redis" --pidfile "$ROOT/$RUN_DIR/redis.pid" --logfile "$ROOT/$LOG_DIR/redis.log")
  [[ -n $REDIS_START_PASSWORD ]] && args+=(--requirepass "$REDIS_START_PASSWORD")
  redis-server "${args[@]}" >/dev/null || { show_log "$LOG_DIR/redis.log"; die "redis-server failed to start"; }
  until redis_probe; do
    if ((waited >= 100)); then
      show_log "$LOG_DIR/redis.log"
      die "redis-server did not answer on 127.0.0.1:$REDIS_PORT within 10 s"
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# Finds the Redis of REDIS_URL, or starts one on this machine.
ensure_redis() {
  local probe=0
  parse_redis_url
  redis_probe || probe=$?
  if ((probe == 0)); then
    if redis_pid_alive; then
      say "Redis answers at $REDIS_HOST:$REDIS_PORT (started by us, pid $(cat "$RUN_DIR/redis.pid"))"
    else
      say "Redis answers at $REDIS_HOST:$REDIS_PORT"
    fi
  elif ((probe == 2)); then
    die "something listens on $REDIS_HOST:$REDIS_PORT but does not answer like Redis; free that port or set REDIS_URL"
  else
    # our own Redis from an earlier run, but on another port (REDIS_URL changed): stop it first
    if redis_pid_alive; then
      say "stopping the Redis started earlier by up.sh (not on port $REDIS_PORT)"
      bash scripts/down.sh redis
    fi
    start_redis
  fi
}

if [[ -n ${REDIS_SENTINELS:-} ]]; then
  say "Redis through the sentinels $REDIS_SENTINELS (not started here)"
else
  ensure_redis
fi

# ---------------------------------------------------------------- build
needs_build() {
  local api=dist/apps/api/main.js worker=dist/apps/worker/main.js cli=dist/apps/cli/main.js ref
  [[ -f $api && -f $worker && -f $cli ]] || return 0
  ref=$api
  [[ $worker -ot $api ]] && ref=$worker
  [[ -n $(find apps libs config tsconfig.json tsconfig.build.json nest-cli.json package-lock.json \
    -newer "$ref" -type f -print -quit 2>/dev/null) ]]
}
if needs_build; then
  say "building (npm run build, log: $LOG_DIR/build.log)"
  if ! npm run build >"$LOG_DIR/build.log" 2>&1; then
    show_log "$LOG_DIR/build.log" 40
    die "the build failed (full log: $LOG_DIR/build.log)"
  fi
  [[ -f dist/apps/api/main.js && -f dist/apps/worker/main.js ]] ||
    die "the build did not produce dist/apps/api/main.js and dist/apps/worker/main.js"
  # webpack leaves an unchanged bundle untouched; mark the build as current for the next run
  touch dist/apps/api/main.js dist/apps/worker/main.js
else
  say "build is up to date"
fi

# ---------------------------------------------------------------- api + worker
probe_host=$HOST
case $probe_host in 0.0.0.0 | :: | '') probe_host=127.0.0.1 ;; esac
[[ $probe_host == *:* ]] && probe_host="[$probe_host]"
API_URL="http://$probe_host:$PORT/api_v1/"

http_ok() {
  if command -v curl >/dev/null; then
    curl -fsS -o /dev/null --max-time 3 "$1" 2>/dev/null
  else
    node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(3000) })
      .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"
  fi
}
# shellcheck disable=SC2016
port_in_use() { timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$PORT" 2>/dev/null; }

# restart: stop what an earlier run started so the new build is picked up
for name in api worker; do
  if [[ -f $RUN_DIR/$name.pid ]]; then
    say "restarting $name"
    bash scripts/down.sh "$name" >/dev/null
  fi
done
if port_in_use; then
  die "port $PORT is already in use by another program; stop it or run with PORT=<free port> npm run up"
fi

# setsid: a session of its own, so neither Ctrl-C here nor closing the terminal reaches the service
# (it exec()s in place here, so $! stays the pid of node itself)
launcher=(nohup)
command -v setsid >/dev/null && launcher=(setsid nohup)
start_process() {
  local name=$1 log="$LOG_DIR/$1.log"
  [[ -f $log ]] && mv -f "$log" "$log.1"
  # scripts/start-app.sh: the allocator and node settings every way of starting the apps uses (docs/memory.md)
  "${launcher[@]}" sh scripts/start-app.sh "$name" >"$log" 2>&1 </dev/null &
  echo $! >"$RUN_DIR/$name.pid"
  say "started $name (pid $!, log: $log)"
}
start_process api
start_process worker

say "waiting up to ${READY_TIMEOUT}s for the API ($API_URL) and the worker"
api_ready=0 worker_ready=0 failed=
deadline=$((SECONDS + READY_TIMEOUT))
while ((SECONDS < deadline)); do
  ((api_ready)) || ! http_ok "$API_URL" || api_ready=1
  ((worker_ready)) || ! grep -q 'Worker ready' "$LOG_DIR/worker.log" 2>/dev/null || worker_ready=1
  ((api_ready && worker_ready)) && break
  for name in api worker; do
    kill -0 "$(cat "$RUN_DIR/$name.pid")" 2>/dev/null || failed="$failed $name"
  done
  [[ -n $failed ]] && break
  sleep 0.5
done

if ! ((api_ready && worker_ready)); then
  if [[ -n $failed ]]; then
    printf 'up: error: process exited during start-up:%s\n' "$failed" >&2
  else
    ((api_ready)) || printf 'up: error: the API did not answer at %s within %ss\n' "$API_URL" "$READY_TIMEOUT" >&2
    ((worker_ready)) || printf 'up: error: the worker did not log "Worker ready" within %ss\n' "$READY_TIMEOUT" >&2
  fi
  ((api_ready)) || show_log "$LOG_DIR/api.log"
  ((worker_ready)) || show_log "$LOG_DIR/worker.log"
  for name in $failed; do rm -f "$RUN_DIR/$name.pid"; done
  echo "up: whatever is still running can be stopped with: npm run down" >&2
  exit 1
fi

# ---------------------------------------------------------------- summary
base="http://$probe_host:$PORT"
if [[ -n ${REDIS_SENTINELS:-} ]]; then
  redis_shown="the primary ${REDIS_SENTINEL_NAME:-} of the sentinels $REDIS_SENTINELS"
else
  redis_shown=${REDIS_URL/\/\/*@/\/\/}
fi
cat <<EOF

PresQT API v1 is up.
  API          $base/api_v1/
  Swagger UI   $base/api/docs
  Redis        $redis_shown
  Logs         var/log/api.log, var/log/worker.log

Demo targets (filesystem, data under ${DATA_DIR:-./var}):
  lab          tokens: alice-lab-token, bob-lab-token
  archive      tokens: alice-archive-token, bob-archive-token

Try:
  curl -H 'presqt-source-token: alice-lab-token' $base/api_v1/targets/lab/resources/
  PRESQT_SERVER=$base PRESQT_TOKEN_LAB=alice-lab-token node dist/apps/cli/main.js ls lab

Stop everything with: npm run down
EOF
