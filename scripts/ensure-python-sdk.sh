#!/usr/bin/env bash
# The Python Gemini SDK (google-genai) in a virtual environment, for the tests that drive hookbox
# with Google's own SDKs (docs/gemini-sdks.md). Pinned to the newest version that installs on the
# machine's python 3.11. Idempotent: a venv that already imports the pinned version is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=2.25.0
VENV=.venv-sdk
log() { [ "${QUIET:-0}" = 1 ] || echo "[hookbox setup] $*" >&2; }
if [ -x "$VENV/bin/python" ] &&
  "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('google-genai') != '$VERSION')" 2>/dev/null; then
  exit 0
fi
log "python SDK venv ($VENV, google-genai $VERSION)"
rm -rf "$VENV"
python3 -m venv "$VENV"
# No retries: where only a local mirror answers, the default index fails at once rather than slowly.
"$VENV/bin/pip" install --quiet --retries 0 "google-genai==$VERSION" >&2 2> >(grep -v -e "^WARNING: Retrying" -e "is ignored" >&2)
