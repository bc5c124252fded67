#!/usr/bin/env bash
# Builds the sandbox base image from Debian's packages (no registry needed): debootstrap a minbase
# bookworm root, then `docker import` it as the tag given in $1.
set -euo pipefail
tag=${1:?usage: build-base.sh TAG}
mirror=${HOOKBOX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=$(grep -vE '^\s*(#|$)' "$(dirname "$0")/base-packages.txt" | paste -sd, -)

if ! command -v debootstrap >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "debootstrap is missing and installing it needs root" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

work=$(mktemp -d /var/tmp/hookbox-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase --include="$packages" bookworm "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
# Package caches and lists only make the image bigger.
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
# Like Debian's slim images: no manuals, info pages, translations or docs but the copyright files,
# now and for packages a template installs later (dpkg path-exclude). About 80 MB of the default
# image's tools (docs/templates.md, "The default image").
cat >"$work/root/etc/dpkg/dpkg.cfg.d/hookbox-slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
SLIM
find "$work/root/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
find "$work/root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$work/root/usr/share/man/"* "$work/root/usr/share/groff/"* "$work/root/usr/share/info/"* \
  "$work/root/usr/share/lintian/"* "$work/root/usr/share/locale/"*
tar -C "$work/root" -c . | docker import --change 'CMD ["/bin/bash"]' - "$tag" >/dev/null
echo "$tag"
