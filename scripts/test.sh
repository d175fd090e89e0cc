#!/usr/bin/env bash
# The test command: lint, then every test that runs without a GPU (GPU-only tests are marked and skipped).
#   scripts/test.sh          the fast tier: every kernel path, plan form, element size and error path at least once
#   scripts/test.sh --full   the full tier: every parametrization (the fast tier's tests included)
#   scripts/test.sh --rest   the full tier less the fast tier's tests (CI runs the fast tier, then this)
# Tests run on every core (pytest-xdist; CORNERTURN_TEST_WORKERS=N sets how many, 0 runs them in this process).
# Further arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
marks="not gpu and not full"
case "${1:-}" in
    --full) marks="not gpu"; shift ;;
    --rest) marks="full and not gpu"; shift ;;
esac
ruff check src tests scripts
python -m pytest -m "$marks" -q -n "${CORNERTURN_TEST_WORKERS:-auto}" "$@"
