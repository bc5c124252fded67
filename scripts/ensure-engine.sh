#!/usr/bin/env bash
# Makes sure a Docker engine answers. On a machine without one, installs Debian's docker.io and starts
# dockerd detached (its output in a log file, so that it never holds a CI job's stdout open).
set -euo pipefail
log() { [ "${QUIET:-0}" = 1 ] || echo "[hookbox setup] $*" >&2; }

engine_up() { docker info >/dev/null 2>&1; }

if engine_up; then log "Docker engine answers"; exit 0; fi

if ! command -v dockerd >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "No Docker engine answers and installing one needs root." >&2; exit 1; }
  log "installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq docker.io >/dev/null
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "dockerd is not running and starting it needs root." >&2; exit 1; }
  logfile=${HOOKBOX_DOCKERD_LOG:-/var/log/hookbox-dockerd.log}
  log "starting dockerd (log: $logfile)"
  # --live-restore: containers keep running while dockerd restarts; the controller re-attaches.
  setsid dockerd --live-restore >"$logfile" 2>&1 < /dev/null &
fi

for _ in $(seq 1 120); do
  if engine_up; then log "Docker engine ready"; exit 0; fi
  sleep 0.5
done
echo "Docker engine did not answer at ${DOCKER_HOST:-unix:///var/run/docker.sock} within 60 s; see ${HOOKBOX_DOCKERD_LOG:-/var/log/hookbox-dockerd.log}" >&2
exit 1
