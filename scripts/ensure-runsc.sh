#!/usr/bin/env bash
# Makes gVisor's runsc available to the Docker engine as the runtime `runsc` (docs/gvisor.md):
# installs Debian's runsc when absent, adds it to /etc/docker/daemon.json with --platform=ptrace (no
# KVM on these machines) and --network=host (gVisor's own network stack refuses to start here: "cannot
# run with network enabled in root network namespace"; with host, the sandbox uses the socket calls of
# the container's own network namespace, as runc does; docs/gvisor.md) and reloads dockerd with
# SIGHUP, which reloads the `runtimes` setting without restarting the engine, so containers of other
# users keep running.
set -euo pipefail
log() { [ "${QUIET:-0}" = 1 ] || echo "[hookbox setup] $*" >&2; }
config=${HOOKBOX_DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}

ARGS='["--platform=ptrace","--network=host"]'
has_runtime() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }
configured() { [ -f "$config" ] && node -e '
  const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  process.exit(JSON.stringify(c.runtimes?.runsc?.runtimeArgs) === process.argv[2] ? 0 : 1);
' "$config" "$ARGS" 2>/dev/null; }
if has_runtime && configured; then log "engine has the runsc runtime"; exit 0; fi

if ! command -v runsc >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "runsc is not installed and installing it needs root." >&2; exit 1; }
  log "installing Debian's runsc (gVisor)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq runsc >/dev/null
fi
[ "$(id -u)" = 0 ] || { echo "registering runsc with dockerd needs root (it edits $config)." >&2; exit 1; }

# Merge, keeping whatever else the file says.
mkdir -p "$(dirname "$config")"
node -e '
  const fs = require("fs");
  const [file, path, args] = process.argv.slice(1);
  let config = {};
  try { config = JSON.parse(fs.readFileSync(file, "utf8")); } catch (error) { if (error.code !== "ENOENT") throw error; }
  config.runtimes = { ...(config.runtimes ?? {}), runsc: { path, runtimeArgs: JSON.parse(args) } };
  fs.writeFileSync(file + ".tmp", JSON.stringify(config, null, 2) + "\n");
  fs.renameSync(file + ".tmp", file);
' "$config" "$(command -v runsc)" "$ARGS"

pid=$(pgrep -xo dockerd || true)
[ -n "$pid" ] || { echo "dockerd is not running; start it (scripts/ensure-engine.sh) first" >&2; exit 1; }
log "reloading dockerd (SIGHUP: runtimes reload without a restart)"
kill -HUP "$pid"
for _ in $(seq 1 40); do
  if has_runtime; then log "engine has the runsc runtime"; exit 0; fi
  sleep 0.25
done
echo "dockerd did not pick up the runsc runtime after SIGHUP; see its log" >&2
exit 1
