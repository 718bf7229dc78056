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

# Benchmarks, then the release gates against benchmarks/thresholds.toml
bench:
    ./dev bench
    .venv/bin/python -m benchmarks.gate .bench.json

# Everything CI runs, on this machine
ci:
    bash .ci/run
