# Developer tasks; each one is what CI does. `./dev` works without just installed.
set shell := ["bash", "-euo", "pipefail", "-c"]

[private]
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

# Benchmarks, then every gate of benchmarks/thresholds.toml; figures and verdicts in bench-report.md
bench *ARGS:
    ./dev bench {{ARGS}}

# The deterministic gates CI checks on every change: claude-docs quality and same-run speed ratios
quality:
    ./dev quality

# One replica at ~100k chunks (issue 34): build, serve over HTTP and stdio, the gates of [scale.*]
scale *ARGS:
    ./dev scale {{ARGS}}

# The docs-mcp-build:dev and docs-mcp-serve:dev images, on the engine at DOCKER_HOST
images *ARGS:
    ./dev images {{ARGS}}

# Everything CI runs, on this machine
ci:
    bash .ci/run

# Offline checks of the GitHub Action, the workflows, the Dockerfiles and shell scripts
ci-lint:
    ./dev ci-lint

# The Action's self-test workflow under act, offline (needs a Docker engine)
ci-act *ARGS:
    ./dev ci-act {{ARGS}}
