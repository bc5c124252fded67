#!/usr/bin/env bash
# The Kubernetes conformance suite (docs/kubernetes.md). Needs a cluster: KUBECONFIG set, the
# namespace made (`hookbox k8s manifests | kubectl apply -f -`) and the sandbox image pullable as
# $HOOKBOX_K8S_SANDBOX_IMAGE. It has not run in CI: no cluster runs on the CI machines.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KUBECONFIG:-}" ]; then
  echo "test:k8s needs a Kubernetes cluster: set KUBECONFIG (kind or k3s: see docs/kubernetes.md)" >&2
  exit 2
fi
: "${HOOKBOX_K8S_SANDBOX_IMAGE:?set HOOKBOX_K8S_SANDBOX_IMAGE to the sandbox image as the nodes pull it}"
npx tsc -p tsconfig.build.json
exec npx vitest run --config vitest.k8s.config.ts "$@"
