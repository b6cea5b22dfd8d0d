#!/usr/bin/env bash
# `npm test`: every check the project has, in phases, with the time of each printed at the end
# (also when one fails). The static checks run side by side: each is one process on one core.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
times=""
phase() {
  local name=$1 start=$SECONDS
  shift
  echo "::: $name: $*"
  "$@"
  times+=$(printf '%-12s %4ss' "$name" $((SECONDS - start)))$'\n'
}
# What the static checks learnt of files that have not changed since their last run: tsc's build
# info, and ESLint's and Prettier's results by file content, in node_modules/.cache/checks.
cache=node_modules/.cache/checks
cached() {
  case $1 in
    typecheck) npm run --silent typecheck -- --incremental --tsBuildInfoFile "$cache/tsbuildinfo" ;;
    lint) npm run --silent lint -- --cache --cache-strategy content --cache-location "$cache/eslint" ;;
    format:check) npm run --silent format:check -- --cache --cache-strategy content --cache-location "$cache/prettier" ;;
  esac
}
# With CHECK_CACHE_DIR (.ci/run sets it), tsc's and ESLint's caches outlive the checkout: each CI
# run is a fresh clone, often in another folder. tsc's build info names files relative to itself,
# so it moves as it is; ESLint's names them by absolute path, moved here from the last checkout's
# (a name that does not match is only a file checked again). Prettier's cannot move: its entries
# hold a hash of options that include the file's absolute path.
load_caches() {
  [ -n "${CHECK_CACHE_DIR:-}" ] && [ -f "$CHECK_CACHE_DIR/root" ] || return 0
  local from
  from=$(cat "$CHECK_CACHE_DIR/root")
  cp "$CHECK_CACHE_DIR"/{tsbuildinfo,eslint} "$cache/" 2>/dev/null || true
  [ ! -f "$cache/eslint" ] || sed -i "s|\"$from/|\"$PWD/|g" "$cache/eslint"
}
save_caches() {
  [ -n "${CHECK_CACHE_DIR:-}" ] || return 0
  mkdir -p "$CHECK_CACHE_DIR"
  cp "$cache"/{tsbuildinfo,eslint} "$CHECK_CACHE_DIR/" 2>/dev/null || true
  echo "$PWD" >"$CHECK_CACHE_DIR/root"
}
# Their output is kept apart, so that a failure reads whole.
static_checks() {
  local folder name seconds status failed=0 pids=()
  folder=$(mktemp -d)
  mkdir -p "$cache"
  load_caches
  for name in typecheck lint format:check; do
    (
      start=$SECONDS
      status=0
      cached "$name" >"$folder/$name.log" 2>&1 || status=$?
      echo "$((SECONDS - start)) $status" >"$folder/$name.status"
    ) &
    pids+=($!)
  done
  # Its own three only: a bare `wait` would wait for the end-to-end phase running beside.
  wait "${pids[@]}"
  save_caches
  for name in typecheck lint format:check; do
    read -r seconds status <"$folder/$name.status"
    cat "$folder/$name.log"
    times+=$(printf '  %-10s %4ss' "${name%:check}" "$seconds")$'\n'
    [ "$status" -eq 0 ] || { echo "::: $name failed"; failed=1; }
  done
  rm -rf "$folder"
  return "$failed"
}
# The end-to-end phase mostly waits (on pages, streams and the browser), so it runs beside the
# others rather than after them, its output kept apart and printed whole when it ends.
# E2E_APART=0 runs it last, alone, as before.
e2e_log=$(mktemp)
e2e_pid=""
# Its own process group (set -m), so that stopping it stops its servers and browsers too.
stop_e2e() { [ -z "$e2e_pid" ] || kill -- -"$e2e_pid" 2>/dev/null || true; }
trap 'stop_e2e; printf "\n::: phase times\n%s%-12s %4ss\n" "$times" tests $((SECONDS - started))' EXIT
if [ "${E2E_APART:-1}" != 0 ]; then
  set -m
  (
    start=$SECONDS
    status=0
    npm run --silent test:e2e >"$e2e_log" 2>&1 || status=$?
    echo "$((SECONDS - start)) $status" >"$e2e_log.status"
  ) &
  e2e_pid=$!
  set +m
  echo "::: end-to-end: npm run --silent test:e2e (beside the other phases; its output follows them)"
fi
phase static static_checks
phase unit npm run --silent test:unit
phase integration npm run --silent test:integration
phase system npm run --silent test:system
if [ -n "$e2e_pid" ]; then
  wait "$e2e_pid" || true
  e2e_pid=""
  cat "$e2e_log"
  read -r seconds status <"$e2e_log.status"
  rm -f "$e2e_log" "$e2e_log.status"
  times+=$(printf '%-12s %4ss (beside the others)' end-to-end "$seconds")$'\n'
  [ "$status" -eq 0 ] || { echo "::: end-to-end failed"; exit "$status"; }
else
  phase end-to-end npm run --silent test:e2e
fi
