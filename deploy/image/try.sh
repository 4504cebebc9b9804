#!/usr/bin/env bash
# Starts the image, waits for /readyz, runs one generation end to end with the API key the first
# start prints, stops the container gracefully and checks that it exited 0 having stopped cleanly.
#
#   deploy/image/try.sh                       # embedded PostgreSQL inside the container
#   DATABASE_URL=postgres://… ADMIN_TOKEN=… API_KEY=gms_… deploy/image/try.sh   # your own database
#
# IMAGE (localhost/genmedia:latest), PORT (3900). The container uses the host's network.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/image/containers.conf}"

IMAGE="${IMAGE:-localhost/genmedia:latest}"
PORT="${PORT:-3900}"
NAME="genmedia-try-$$"
BASE_URL="http://127.0.0.1:$PORT"
SHUTDOWN_TIMEOUT_MS="${SHUTDOWN_TIMEOUT_MS:-10000}"

fail() {
  echo "FAILED: $*" >&2
  podman logs "$NAME" 2>&1 | tail -40 >&2 || true
  podman rm -f -v "$NAME" >/dev/null 2>&1 || true
  exit 1
}

args=(--name "$NAME" --network host -e "PORT=$PORT" -e "HOST=127.0.0.1" -e "SHUTDOWN_TIMEOUT_MS=$SHUTDOWN_TIMEOUT_MS")
if [[ -n "${DATABASE_URL:-}" ]]; then
  args+=(-e "DATABASE_URL=$DATABASE_URL" -e "ADMIN_TOKEN=${ADMIN_TOKEN:?ADMIN_TOKEN is needed with DATABASE_URL}")
  args+=(-e "PAYMENT_PROVIDER=${PAYMENT_PROVIDER:-builtin}" -e "SIMULATOR_MODELS=${SIMULATOR_MODELS:-*}")
  [[ -n "${API_KEY:-}" ]] || { echo "API_KEY (a team's key) is needed with DATABASE_URL" >&2; exit 1; }
fi

started=$(date +%s)
podman run -d "${args[@]}" "$IMAGE" >/dev/null
echo "started $NAME from $IMAGE on port $PORT"

# Ready: /readyz answers 200 (the first start initialises PostgreSQL and migrates).
for _ in $(seq 1 240); do
  if [[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL/readyz" || true)" == 200 ]]; then break; fi
  [[ "$(podman inspect -f '{{.State.Running}}' "$NAME")" == true ]] || fail "the container exited while starting"
  sleep 0.5
done
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL/readyz")" == 200 ]] || fail "/readyz never answered 200"
echo "ready after $(($(date +%s) - started)) s"
podman healthcheck run "$NAME" >/dev/null && echo "health check: healthy" || fail "the health check failed"

key="${API_KEY:-$(podman logs "$NAME" 2>&1 | grep -o 'gms_[A-Za-z0-9_-]*' | head -1)}"
[[ -n "$key" ]] || fail "no API key printed at the first start"
auth=(-H "Authorization: Bearer $key")

created="$(curl -sf "${auth[@]}" -H 'content-type: application/json' \
  -d '{"prompt":"a lighthouse at dusk, from the image check"}' "$BASE_URL/api/v1/images/generate")" ||
  fail "the generation was refused"
id="$(grep -o '"generation_id":"[^"]*"' <<<"$created" | cut -d'"' -f4)"
echo "generation $id accepted"
status=""
for _ in $(seq 1 240); do
  status="$(curl -sf "${auth[@]}" "$BASE_URL/api/v1/generations/$id/status")" || fail "status unreadable"
  grep -q '"status":"\(completed\|failed\)"' <<<"$status" && break
  sleep 0.5
done
grep -q '"status":"completed"' <<<"$status" || fail "the generation did not complete: $status"
url="$(grep -o '"url":"[^"]*"' <<<"$status" | head -1 | cut -d'"' -f4)"
[[ "$url" == /* ]] && url="$BASE_URL$url"
bytes="$(curl -sf "${auth[@]}" -o /dev/null -w '%{size_download}' "$url")" || fail "the result $url could not be read"
echo "generation $id completed: $url ($bytes bytes)"

# A graceful stop: SIGTERM (the image's STOPSIGNAL), a grace period longer than SHUTDOWN_TIMEOUT_MS.
stopped=$(date +%s%N)
podman stop -t $((SHUTDOWN_TIMEOUT_MS / 1000 + 5)) "$NAME" >/dev/null
code="$(podman inspect -f '{{.State.ExitCode}}' "$NAME")"
echo "stopped in $((($(date +%s%N) - stopped) / 1000000)) ms, exit code $code"
[[ "$code" == 0 ]] || fail "exit code $code"
podman logs "$NAME" 2>&1 | grep -q 'stopped cleanly' || fail "no 'stopped cleanly' in the log"
podman logs "$NAME" 2>&1 | grep -q 'second signal' && fail "the stop was forced"
echo "stopped cleanly"
podman rm -v "$NAME" >/dev/null
