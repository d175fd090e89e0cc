#!/usr/bin/env bash
# The several-GPU checks and benchmark, on a machine with NPROC GPUs (run from the repository root):
#   NPROC=2 ROWS=32768 COLS=32768 DTYPE=float32 RUNS="direct:4 all_to_all:8" OUT=/some/dir scripts/gpu_distributed.sh
# A run is METHOD:CHUNKS, or direct:CHUNKS:per_peer for the direct method with one copy stream per peer.
# 1. the GPU tests of the sharded transpose's building blocks; 2. tests/dist_worker.py over NCCL (uneven splits,
# an empty rank, six dtypes, both methods, the same error on every rank); 3. `cornerturn bench --distributed`
# for each run in RUNS. The benchmark JSON and the logs land in $OUT.
set -u
NPROC=${NPROC:-2}; ROWS=${ROWS:-32768}; COLS=${COLS:-32768}; RUNS=${RUNS:-"direct:4 all_to_all:8"}; DTYPE=${DTYPE:-float32}; REPEATS=${REPEATS:-10}
OUT=${OUT:?set OUT}
CHECKS=$(mktemp -d)  # the correctness workers' per-rank files (summarised below), kept out of $OUT
export NCCL_NVLS_ENABLE=0 TRITON_INTERPRET=0 PYTHONUNBUFFERED=1
status=0
nvidia-smi --query-gpu=index,name,memory.total --format=csv | tee "$OUT/gpus.csv"
date -u +"%Y-%m-%d %H:%M UTC" | tee "$OUT/date.txt"
CORNERTURN_GPU_TESTS=1 python3 -m pytest -q -m gpu tests/test_gpu.py -k "transpose_into" 2>&1 | tail -3 \
    | tee "$OUT/gpu-tests.log" || status=1
for n in $(seq 2 "$NPROC"); do
    CORNERTURN_DIST_DEVICE=cuda torchrun --standalone --nproc-per-node "$n" \
        tests/dist_worker.py "$CHECKS/check-$n" > "$CHECKS/check-$n.log" 2>&1 || status=1
    python3 - "$CHECKS/check-$n" "$n" <<'PY' || status=1
import json, sys
prefix, n = sys.argv[1], int(sys.argv[2])
seen = [json.load(open(f"{prefix}.{r}.json")) for r in range(n)]
bad = [c["case"] for s in seen for c in s["cases"] if not (c["exact"] and c["shape_ok"] and c["rows_ok"])]
same_errors = all(s["errors"] == seen[0]["errors"] and all(seen[0]["errors"].values()) for s in seen)
print(f"{n} ranks over NCCL: {len(seen[0]['cases'])} cases, wrong: {bad or 'none'}, "
      f"same error on every rank: {same_errors}")
sys.exit(0 if not bad and same_errors else 1)
PY
    [ -s "$CHECKS/check-$n.0.json" ] || tail -25 "$CHECKS/check-$n.log"
done
for run in $RUNS; do
    IFS=: read -r m c streams <<< "$run"
    torchrun --standalone --nproc-per-node "$NPROC" -m cornerturn.cli bench --distributed --rows "$ROWS" \
        --cols "$COLS" --dtype "$DTYPE" --method "$m" --chunks "$c" --repeats "$REPEATS" \
        ${streams:+--copy-streams "$streams"} \
        --json "$OUT/distributed-${NPROC}x-$DTYPE-$m-chunks$c${streams:+-$streams}.json" 2>&1 \
        | grep -v Warning | tail -12 || status=1
done
exit $status
