#!/usr/bin/env bash
# The test command: lint, then every test that runs without a GPU (GPU-only tests are marked and skipped).
#   scripts/test.sh          the fast tier: every kernel path, plan form, element size and error path at least once
#   scripts/test.sh --full   the full tier: every parametrization (CI runs both)
# Further arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
marks="not gpu and not full"
if [[ "${1:-}" == "--full" ]]; then
    marks="not gpu"
    shift
fi
ruff check src tests scripts
python -m pytest -m "$marks" -q "$@"
