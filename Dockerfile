# The hookbox controller as an image: `hookbox serve` on 0.0.0.0:8080, driving the host's Docker
# engine through its socket, which you mount:
#
#   docker run -d -p 127.0.0.1:8080:8080 -v /var/run/docker.sock:/var/run/docker.sock \
#     -e HOOKBOX_API_KEYS=change-me-please hookbox/controller
#
# The build context is a built checkout (`npm ci && npm run build`: dist/ and node_modules/ exist).
#
# BASE_IMAGE defaults to the registry's Node.js image. Where no registry can be reached, build on
# the sandbox's own Debian base instead (hookbox/base:bookworm-<hash>, made from Debian's packages
# by sandbox-image/build-base.sh) and put a Node.js 20 binary named `node` at the top of the build
# context (the host's: `cp "$(command -v node)" node`); `hookbox image controller` does all of this
# and tags the result by content hash. A base that already has node ignores that file.
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}
ARG BASE_IMAGE

# `nod[e]` matches the optional node binary, and nothing when it is absent.
COPY package.json package-lock.json nod[e] /opt/hookbox/
RUN set -eu; \
    if [ -f /opt/hookbox/node ]; then \
      # Given one, it wins: the sandbox's Debian base has Debian's Node.js 18 for hooks, too old here.
      install -m 0755 /opt/hookbox/node /usr/local/bin/node; \
      rm -f /opt/hookbox/node; \
    fi; \
    command -v node >/dev/null || { echo "no node in ${BASE_IMAGE:-the base}: put a Node.js 20 binary named node in the build context" >&2; exit 1; }; \
    node -e 'const [major] = process.versions.node.split("."); if (+major < 20) { console.error("hookbox needs Node.js 20 or newer, found " + process.version); process.exit(1); }'

WORKDIR /opt/hookbox
COPY node_modules/ /opt/hookbox/node_modules/
# The sandbox image's inputs: the controller computes the sandbox image tag from them and finds that
# image on the host's engine (build it there first: `hookbox image build`).
COPY sandbox-image/ /opt/hookbox/sandbox-image/
# The shipped templates (docs/templates.md), built on the host's engine on first use.
COPY templates/ /opt/hookbox/templates/
COPY bin/ /opt/hookbox/bin/
# The web console's page, code and styles (served at /console; the UI library comes from node_modules).
COPY console/ /opt/hookbox/console/
COPY dist/src/ /opt/hookbox/dist/src/

# Audit logs (one JSON-lines file per environment); mount a volume here to keep them.
ENV NODE_ENV=production HOOKBOX_HOME=/var/lib/hookbox HOOKBOX_LOG_LEVEL=info
RUN mkdir -p /var/lib/hookbox
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop): stop accepting, finish the interactions in flight, delete the environments.
# The image runs with --no-state: a state file in the container's own filesystem would not outlive
# it, and environments left to it would outlive their controller. For a durable controller, mount a
# volume at /var/lib/hookbox and run `serve --host 0.0.0.0 --port 8080` (docs/operations.md).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/opt/hookbox/bin/hookbox.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--no-state"]
