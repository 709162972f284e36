#!/bin/sh
# Starts one app (api or worker) as every way of running the service does: `npm run start:*`, `npm run up`,
# the Docker images, the benchmarks and the chaos run. Why each setting: docs/memory.md.
# Usage: scripts/start-app.sh <api|worker> [node options...]
# PRESQT_APP_MAIN runs that script instead of the app's build, with the app's settings (bench/listing/ starts
# its bare endpoint so, to compare the API with it and nothing else).
set -e
app=$1
shift
cd "$(dirname "$0")/.."
# jemalloc, when installed (Debian: libjemalloc2), hands freed memory back to the system, so a worker returns
# to its idle size after a job; glibc keeps it in fragmented arenas. Freed pages go back within a quarter of a
# second: a stream's read buffers die faster than V8 collects them, and freed pages kept longer add to the peak
for lib in /usr/lib/*-linux-gnu/libjemalloc.so.2 /usr/lib/libjemalloc.so.2; do
  if [ -z "${PRESQT_NO_JEMALLOC:-}" ] && [ -f "$lib" ]; then
    export LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
    export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:250,muzzy_decay_ms:0}"
    break
  fi
done
# glibc, when it is the allocator: freed 1 MiB stream buffers go back at once instead of lingering
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
# the worker collects its heap once it has no job left (apps/worker/src/jobs/idle-collector.ts), and grows
# its heap at most 60% past what survived a collection, so a job of many small files does not inflate it
[ "$app" = worker ] && set -- --expose-gc --heap-growing-percent=60 "$@"
# the worker's young generation is small, so that the wrappers of its dead 1 MiB stream buffers are collected
# promptly; the API's is larger: a small one was collected every 15 listings or so, each collection copying
# the requests under way and promoting them to the old generation (docs/memory.md)
semi_space_mib=2
[ "$app" = api ] && semi_space_mib=8
# the young generation's dead buffers are freed during the collection that finds them, not by a background
# sweep finishing later: until then V8 counts them against the heap limit, and 1 MiB stream buffers brought a
# full collection every 20 MiB or so (docs/memory.md)
exec node --max-semi-space-size=$semi_space_mib --no-concurrent-array-buffer-sweeping "$@" \
  "${PRESQT_APP_MAIN:-dist/apps/$app/main.js}"
