#!/usr/bin/env bash
# Builds the service's image with podman from reachable sources only.
#
#   deploy/image/build.sh                     # FROM a local Debian made by mmdebstrap (no registry)
#   BASE=docker.io/library/node:24-bookworm-slim deploy/image/build.sh   # FROM a registry's node image
#
# IMAGE names the result (localhost/genmedia:latest); SUITE the Debian release of the local base
# (bookworm). Needs podman (and mmdebstrap for the local base): apt-get install podman buildah
# mmdebstrap runc.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/image/containers.conf}"

IMAGE="${IMAGE:-localhost/genmedia:latest}"
SUITE="${SUITE:-bookworm}"
BASE="${BASE:-}"

if [[ -z "$BASE" ]]; then
  BASE="localhost/genmedia-debian:$SUITE"
  if podman image exists "$BASE"; then
    echo "base: $BASE (already made)"
  else
    work="$(mktemp -d)"
    echo "base: making $BASE with mmdebstrap ($SUITE, minbase)"
    started=$(date +%s)
    mmdebstrap --quiet --variant=minbase "$SUITE" "$work/rootfs.tar"
    podman import --quiet \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'CMD ["/bin/bash"]' \
      "$work/rootfs.tar" "$BASE" >/dev/null
    rm -rf "$work"
    echo "base: made in $(($(date +%s) - started)) s"
  fi
fi

# A network that inspects TLS: its certificate authority (CA_FILE, else the host's
# NODE_EXTRA_CA_CERTS) reaches npm in the build as a secret, never a layer. None: an empty file.
ca="${CA_FILE:-${NODE_EXTRA_CA_CERTS:-}}"
if [[ -z "$ca" ]]; then
  ca="$(mktemp)"
  trap 'rm -f "$ca"' EXIT
fi

echo "image: building $IMAGE FROM $BASE"
started=$(date +%s)
# docker format: OCI images have no HEALTHCHECK. Host network: the build fetches from npm and Debian.
podman build --format docker --network host --secret "id=ca,src=$ca" --build-arg "BASE=$BASE" \
  -f Containerfile -t "$IMAGE" .
echo "image: built in $(($(date +%s) - started)) s"
podman image inspect "$IMAGE" --format 'image: {{.Id}} size {{.Size}} bytes' | cut -c1-100
podman image ls "$IMAGE"
