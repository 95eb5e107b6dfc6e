#!/usr/bin/env bash
# Run the benchmarks in sequence (about 10 minutes on 2 cores) but the long ones (reliability.py,
# bench_eval.py, bench_batch.py: run them by hand); exit 1 if any of them failed to run or failed
# a hard check. Timing targets missed are printed, not failures: machines are noisy.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
status=0
for bench in bench_overhead bench_help bench_local bench_history bench_storage bench_revision bench_cache \
    bench_threads bench_inflight bench_first_run bench_first_call bench_task_cpu bench_sources \
    bench_verifier bench_memory bench_reviews bench_guards bench_length_control bench_review_tokens; do
    echo "=== bench/$bench.py"
    "$PY" "bench/$bench.py" || { echo "!!! bench/$bench.py exited $?"; status=1; }
    echo
done
exit $status
