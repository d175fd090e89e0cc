#!/usr/bin/env bash
# The test command: lint, then every test that runs without a GPU (GPU-only tests are marked and skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check src tests scripts
python -m pytest -m "not gpu" -q "$@"
