# shellcheck shell=bash
# A private Docker engine for the container tests, started as a child of the shell that sources this.
#
#   source .ci/docker-engine.sh
#   docker_engine_start /var/tmp/docs-mcp-docker   # data root (image and build cache)
#   docker_engine_trim                             # what earlier runs left, bounded
#   ...                                            # DOCKER_HOST points at it
#   docker_engine_stop
#
# Its own data root, exec root, pid file and socket (under a short /tmp path: unix socket paths must
# stay under 108 bytes), so it never touches another engine's state. Published container ports bind
# 127.0.0.1 unless a test says otherwise; loopback registries are plain HTTP ("insecure").
# Needs root and Debian's docker.io (/usr/sbin/dockerd); .ci/run installs it.

docker_engine_start() {
    local data_root=${1:?usage: docker_engine_start DATA_ROOT}
    local run
    run=$(mktemp -d /tmp/dmcp.XXXXXX)
    mkdir -p "$data_root"
    cat >"$run/daemon.json" <<'JSON'
{
  "insecure-registries": ["127.0.0.0/8"],
  "ip": "127.0.0.1",
  "log-driver": "json-file",
  "log-opts": {"max-size": "10m"}
}
JSON
    /usr/sbin/dockerd --config-file "$run/daemon.json" --data-root "$data_root" --exec-root "$run/x" \
        --pidfile "$run/pid" -H "unix://$run/s" >"$run/dockerd.log" 2>&1 &
    DOCKER_ENGINE_PID=$!
    DOCKER_ENGINE_RUN=$run
    export DOCKER_HOST="unix://$run/s"
    local _
    for _ in $(seq 300); do  # ready in under a second when idle; bounded at 30 s
        if curl -sf --unix-socket "$run/s" http://engine/_ping >/dev/null 2>&1; then
            echo "docker engine ready at $DOCKER_HOST (pid $DOCKER_ENGINE_PID, data root $data_root)"
            return 0
        fi
        kill -0 "$DOCKER_ENGINE_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "dockerd did not start; its log:" >&2
    tail -n 40 "$run/dockerd.log" >&2
    docker_engine_stop
    return 1
}

# A data root kept between runs grows by every run's images (each index baked into a serve image has
# its own tag; each rebuild leaves the previous images untagged) and their build cache: tens of GB
# after a day of runs, until a run fails on a full disk. This keeps the base image, the images the
# next run rebuilds (their cache makes that quick) and the build cache most recently used, up to
# DOCS_MCP_DOCKER_CACHE (default 8GB); it removes the rest. Never fails the run.
docker_engine_trim() {
    local stale
    stale=$(docker images --format '{{.Repository}}:{{.Tag}}' | grep -E '^docs-mcp-serve:idx-|/selftest/' || true)
    if [ -n "$stale" ]; then
        # shellcheck disable=SC2086  # one image name per word
        docker rmi -f $stale >/dev/null 2>&1 || true
    fi
    docker image prune -f >/dev/null 2>&1 || true
    docker builder prune -f --keep-storage "${DOCS_MCP_DOCKER_CACHE:-8GB}" >/dev/null 2>&1 || true
    echo "docker engine: data root trimmed to $(du -sh "$(docker info --format '{{.DockerRootDir}}')" 2>/dev/null | cut -f1)"
}

docker_engine_stop() {
    [ -n "${DOCKER_ENGINE_PID:-}" ] || return 0
    if kill -0 "$DOCKER_ENGINE_PID" 2>/dev/null; then
        kill -TERM "$DOCKER_ENGINE_PID"
        # dockerd stops its containers (10 s grace each, in parallel) and its containerd, then exits.
        local _
        for _ in $(seq 300); do
            kill -0 "$DOCKER_ENGINE_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$DOCKER_ENGINE_PID" 2>/dev/null || true
    fi
    wait "$DOCKER_ENGINE_PID" 2>/dev/null || true
    # The engine can leave mounts under its exec root (netns/default, bound by network namespaces):
    # detach them first, or rm fails with "Device or resource busy". Cleanup never fails the run.
    local mount
    { findmnt -rn -o TARGET | grep -F "$DOCKER_ENGINE_RUN/" || true; } | sort -r | while read -r mount; do
        umount -l "$mount" 2>/dev/null || true
    done
    rm -rf "${DOCKER_ENGINE_RUN:?}" || echo "docker engine: could not remove $DOCKER_ENGINE_RUN" >&2
    unset DOCKER_ENGINE_PID DOCKER_ENGINE_RUN DOCKER_HOST
}
