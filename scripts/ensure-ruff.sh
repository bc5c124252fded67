#!/usr/bin/env bash
# ruff, the Python linter `npm run lint` runs over sandbox-image/, hooks-scripts/ and test/sdk/
# (README, "Checks"), in a virtual environment of its own, installed the way
# scripts/ensure-python-sdk.sh installs the SDK. Idempotent: a venv with the pinned version is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.16.9
VENV=.venv-lint
log() { [ "${QUIET:-0}" = 1 ] || echo "[hookbox setup] $*" >&2; }
if [ -x "$VENV/bin/ruff" ] && [ "$("$VENV/bin/ruff" --version 2>/dev/null)" = "ruff $VERSION" ]; then
  exit 0
fi
log "python linter venv ($VENV, ruff $VERSION)"
rm -rf "$VENV"
python3 -m venv "$VENV"
# No retries: where only a local mirror answers, the default index fails at once rather than slowly.
"$VENV/bin/pip" install --quiet --retries 0 "ruff==$VERSION" >&2 2> >(grep -v -e "^WARNING: Retrying" -e "is ignored" >&2)
