#!/usr/bin/env bash
# What the PostgreSQL state tests need (docs/kubernetes.md, Several replicas): initdb and pg_ctl
# (Debian's postgresql when absent) and a system user to run them as — initdb refuses root. Each
# test starts its own server in a temporary folder; nothing here starts one.
set -euo pipefail
log() { [ "${QUIET:-0}" = 1 ] || echo "[hookbox setup] $*" >&2; }

find_bin() { command -v "$1" 2>/dev/null || ls /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -1; }
if [ -z "$(find_bin initdb)" ]; then
  [ "$(id -u)" = 0 ] || { echo "PostgreSQL is not installed and installing it needs root." >&2; exit 1; }
  log "installing Debian's postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq postgresql >/dev/null
fi
if [ "$(id -u)" = 0 ] && ! id hookbox-pg >/dev/null 2>&1; then
  log "adding the system user hookbox-pg (runs the tests' PostgreSQL servers)"
  useradd --system --no-create-home --shell /usr/sbin/nologin hookbox-pg
fi
log "PostgreSQL: $(find_bin initdb)"
