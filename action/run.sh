#!/usr/bin/env bash
# The docs-mcp Action's one step (action.yml): validate -> build -> publish -> [bake and push the
# serve image] -> outputs and job summary. Inputs arrive as DOCS_MCP_ACTION_* environment variables
# and are only ever used as quoted words, never evaluated. Needs bash and a Docker CLI with an engine.
#
# The build image runs as the runner's user with the workspace mounted read-only at its own path, so
# the paths docs-mcp prints (annotations: relative to $GITHUB_WORKSPACE) are the runner's paths;
# --network host, so a registry the runner reaches (a `services:` registry on localhost) is reached.
set -euo pipefail

say() { echo "docs-mcp action: $*" >&2; }
fail() { echo "::error title=docs-mcp action::$*"; exit 1; }
truthy() { case "${1,,}" in true | yes | 1 | on) return 0 ;; false | no | 0 | off | "") return 1 ;; esac
           fail "expected true or false, not '$1'"; }

action_path=${GITHUB_ACTION_PATH:?the runner sets GITHUB_ACTION_PATH for composite actions}
workspace=${GITHUB_WORKSPACE:-$PWD}
sha=${GITHUB_SHA:?}
short_sha=${sha:0:12}
docs_dir=${DOCS_MCP_ACTION_DOCS_DIR:-docs}
registry=${DOCS_MCP_ACTION_REGISTRY:-ghcr.io}
repository=${DOCS_MCP_ACTION_REPOSITORY:-${GITHUB_REPOSITORY:?}/docs-index}
repository=${repository,,}  # OCI repository names are lower case; GitHub's owner names need not be
read -r -a tags <<<"$(tr ',\n\r' '   ' <<<"${DOCS_MCP_ACTION_TAGS:-}")"
[ "${#tags[@]}" -gt 0 ] || tags=("idx-$short_sha")
username=${DOCS_MCP_ACTION_USERNAME:-}
password=${DOCS_MCP_ACTION_PASSWORD:-}
api_key=${DOCS_MCP_ACTION_EMBEDDING_API_KEY:-}
strict=()
if truthy "${DOCS_MCP_ACTION_FAIL_ON_WARNINGS:-false}"; then strict=(--strict); fi
bake=false
if truthy "${DOCS_MCP_ACTION_SERVE_IMAGE:-false}"; then bake=true; fi
serve_base='' serve_input='' serve_target=serve  # set once the index is built
for secret in "$password" "$api_key"; do
    if [ -n "$secret" ]; then echo "::add-mask::$secret"; fi
done
[ -d "$workspace/$docs_dir" ] || fail "docs-dir '$docs_dir' is not a folder of the workspace $workspace"

work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/docs-mcp-action.XXXXXX")
# shellcheck disable=SC2064  # expand now
trap "rm -rf '$work'" EXIT
mkdir -p "$work/home"
# Registry credentials for docker login go to a private config, not the runner's ~/.docker.
export DOCKER_CONFIG="$work/docker"

image_for() {  # image_for INPUT TARGET: the image to run, built from this action when INPUT is empty
    local given=$1 target=$2
    if [ -n "$given" ]; then echo "$given"; return; fi
    say "no pinned $target image: building it from $action_path (unreleased action)"
    DOCS_MCP_IMAGE_TAG=action "$action_path/scripts/images" "$target" | tail -n 1
}

build_image=$(image_for "${DOCS_MCP_ACTION_BUILD_IMAGE:-}" build)

# The artifact's `created` annotation: the commit's time (when the docs changed), not the clock's.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$workspace" log -1 --format=%ct 2>/dev/null || true)}
export SOURCE_DATE_EPOCH

docs_mcp() {  # docs_mcp ARGS...: the build image's docs-mcp, as the runner's user
    docker run --rm --network host --user "$(id -u):$(id -g)" -e HOME="$work/home" -e SOURCE_DATE_EPOCH \
        -e GITHUB_WORKSPACE="$workspace" -e OPENAI_API_KEY -e DOCS_MCP_REGISTRY_USERNAME \
        -e DOCS_MCP_REGISTRY_PASSWORD -v "$workspace:$workspace:ro" -v "$work:$work" -w "$workspace" \
        "$build_image" "$@"
}

# --- validate: one annotation per finding on the runner's log (stdout); kept for the summary
status=0
docs_mcp validate --docs-dir "$docs_dir" --format github "${strict[@]}" | tee "$work/annotations.txt" ||
    status=$?
errors=$(grep -c '^::error ' "$work/annotations.txt" || true)
warnings=$(grep -c '^::warning ' "$work/annotations.txt" || true)

report() {  # report [STAGE]: outputs and the job summary from what exists in $work
    docker run --rm --user "$(id -u):$(id -g)" -v "$work:$work" -v "$action_path/action:/action:ro" \
        --entrypoint python3 -e STAGE="${1:-}" -e ERRORS="$errors" -e WARNINGS="$warnings" \
        -e STRICT="${#strict[@]}" -e SERVE_BASE="${serve_base:-${serve_input:-docs-mcp-$serve_target}}" \
        -e DOCS_DIR="$docs_dir" -e REPOSITORY="$registry/$repository" \
        "$build_image" /action/report.py "$work"
    [ ! -f "$work/outputs.txt" ] || cat "$work/outputs.txt" >>"${GITHUB_OUTPUT:-/dev/null}"
    cat "$work/summary.md" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
}

if [ "$status" -ne 0 ]; then
    report validate
    fail "validation failed in $docs_dir: $errors error(s), $warnings warning(s) (see the annotations)"
fi

# --- build
build_args=(--docs-dir "$docs_dir" --out "$work/index" --quiet --json)
[ -z "${DOCS_MCP_ACTION_DESCRIPTION:-}" ] || build_args+=(--description "$DOCS_MCP_ACTION_DESCRIPTION")
[ -z "${DOCS_MCP_ACTION_VERSION:-}" ] || build_args+=(--version "$DOCS_MCP_ACTION_VERSION")
[ -z "${DOCS_MCP_ACTION_EMBEDDING_PROVIDER:-}" ] ||
    build_args+=(--embedding-provider "$DOCS_MCP_ACTION_EMBEDDING_PROVIDER")
OPENAI_API_KEY=$api_key docs_mcp build "${build_args[@]}" >"$work/build.json"
# An index of 0 chunks answers nothing: never published (build refuses it too; this guards the step).
chunks=$(grep -o '"chunks": *[0-9]*' "$work/build.json" | grep -o '[0-9]*$' || echo 0)
[ "$chunks" -gt 0 ] || { report build; fail "the index built from $docs_dir has no chunks; nothing was published"; }

# --- publish (credentials through the environment, never on a command line)
publish_args=("$registry/$repository:${tags[0]}" --index "$work/index" --cache-dir "$work/cache" --json)
for tag in "${tags[@]:1}"; do publish_args+=(--tag "$tag"); done
publish_args+=(--source "${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}")
if [ -n "$password" ]; then
    DOCS_MCP_REGISTRY_USERNAME=${username:-docs-mcp} DOCS_MCP_REGISTRY_PASSWORD=$password \
        docs_mcp publish "${publish_args[@]}" >"$work/publish.json"
else
    docs_mcp publish "${publish_args[@]}" >"$work/publish.json"
fi

# --- the serve image with the index baked in (Dockerfile.serve, target idx, on the serve image)
# The serve image for this index: an index of local vectors needs the local query embedder.
provider=$(grep -o '"provider": *"[a-z]*"' "$work/build.json" | head -n 1 | cut -d'"' -f4 || true)
serve_input=${DOCS_MCP_ACTION_SERVE_IMAGE_BASE:-} serve_target=serve
if [ "$provider" = local ]; then serve_input=${DOCS_MCP_ACTION_SERVE_LOCAL_IMAGE_BASE:-} serve_target=serve-local; fi
if [ "$bake" = true ]; then
    serve_base=$(image_for "$serve_input" "$serve_target")
    serve_ref="$registry/$repository-serve:idx-$short_sha"
    # scripts/images stages the index in the action's checkout and builds Dockerfile.serve's idx
    # target onto the serve image (the build's cache lives under $HOME, not in the index).
    baked=$(DOCS_MCP_SERVE_BASE=$serve_base "$action_path/scripts/images" idx "$work/index" "idx-$short_sha" |
        tail -n 1)
    docker tag "$baked" "$serve_ref"
    if [ -n "$password" ]; then
        printf '%s' "$password" | docker login "$registry" -u "${username:-docs-mcp}" --password-stdin >&2
    fi
    docker push --quiet "$serve_ref" >&2
    docker image inspect -f '{{range .RepoDigests}}{{println .}}{{end}}' "$serve_ref" |
        grep -m 1 -F "$registry/$repository-serve@" >"$work/serve-image.txt"
fi

report
