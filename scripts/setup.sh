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

# Headless Chromium for the console's browser test (test/integration/console-browser.test.ts).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing chromium (Debian's package) for the console's browser test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium fonts-dejavu-core) >&2
  else
    echo "[hookbox setup] warning: no chromium; the console's browser test needs it (apt-get install chromium)" >&2
  fi
fi

# Workspace disks (sandbox.diskMb) are ext4 filesystems the controller makes with mkfs.ext4.
if ! command -v mkfs.ext4 >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  log "installing e2fsprogs (mkfs.ext4, for workspace disks)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q e2fsprogs >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q e2fsprogs >&2; }
fi

# The sandbox agent's own tests check its answers against the protocol's JSON Schema with Debian's
# python3-jsonschema, on Debian's python3 (the image's interpreter; docs/agent-protocol.md, Tests).
if ! /usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  log "installing python3-jsonschema (for the sandbox agent's tests)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-jsonschema >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-jsonschema >&2; }
fi

bash scripts/ensure-engine.sh
# gVisor for `--runtime runsc` and `npm run test:runsc` (docs/gvisor.md).
bash scripts/ensure-runsc.sh
# PostgreSQL for the shared-state tests (docs/kubernetes.md, Several replicas).
bash scripts/ensure-postgres.sh
# The Python Gemini SDK, for the tests that drive hookbox through Google's SDKs.
bash scripts/ensure-python-sdk.sh
# ruff, the Python linter of `npm run lint` (README, "Checks").
bash scripts/ensure-ruff.sh
log "sandbox image"
node bin/hookbox.js image build >/dev/null
