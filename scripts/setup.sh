#!/usr/bin/env bash
# Everything a fresh clone needs, idempotent and quick when already done: npm packages, the compiled
# CLI, a running Docker engine (installed and started if none answers) and the sandbox image (built
# from Debian's packages, cached by content hash).
set -euo pipefail
cd "$(dirname "$0")/.."
QUIET=0
[ "${1:-}" = "--quiet" ] && QUIET=1
export QUIET
log() { [ "$QUIET" = 1 ] || echo "[hookbox setup] $*" >&2; }

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

log "compiling"
npx tsc -p tsconfig.build.json || echo "[hookbox setup] warning: type errors (npm run typecheck); the compiled output is still written" >&2

bash scripts/ensure-engine.sh
# gVisor for `--runtime runsc` and `npm run test:runsc` (docs/gvisor.md).
bash scripts/ensure-runsc.sh
# PostgreSQL for the shared-state tests (docs/kubernetes.md, Several replicas).
bash scripts/ensure-postgres.sh
log "sandbox image"
node bin/hookbox.js image build >/dev/null
