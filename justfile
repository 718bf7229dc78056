# Developer tasks; each one is what CI does. `./dev` works without just installed.
set shell := ["bash", "-euo", "pipefail", "-c"]

default:
    @just --list

# Build the bundled example docs and search them through the MCP server
example:
    ./dev example

# The whole test suite (what CI runs)
test *ARGS:
    ./dev test {{ARGS}}

# ruff, mypy and the import-layer contracts
lint:
    ./dev lint

# Benchmarks, then every gate of benchmarks/thresholds.toml: writes bench-report.md (figures, verdicts,
# the previous run's figures beside them) and fails when a gate fails
bench *ARGS:
    #!/usr/bin/env bash
    set -uo pipefail
    if [ -f .bench.json ]; then mv .bench.json .bench-previous.json; fi
    status=0
    ./dev bench {{ARGS}} || status=$?
    .venv/bin/python -m benchmarks.gate .bench.json --previous .bench-previous.json --markdown bench-report.md || status=1
    echo "figures and verdicts: bench-report.md"
    exit $status

# The deterministic gates CI checks on every change: claude-docs quality and same-run speed ratios
quality:
    ./dev quality

# The docs-mcp-build:dev and docs-mcp-serve:dev images, on the engine at DOCKER_HOST
images *ARGS:
    ./dev images {{ARGS}}

# Everything CI runs, on this machine
ci:
    bash .ci/run
