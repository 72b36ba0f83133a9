#!/usr/bin/env bash
# One-shot check on a machine with an NVIDIA GPU (issue #12), about 5-8 minutes:
#
#   bash benchmarks/gpu_check.sh          # from the repository root or anywhere
#
# 1. CuPy: installs the gpu extra (pip install -e ".[gpu]") when CuPy is missing
#    or sees no device; stops (exit 2) if it still sees none.
# 2. The G benchmarks first, on a quiet machine: python benchmarks/run.py
#    --only G --check (the G rows and their targets).
# 2b. Where a GPU step's host time goes: benchmarks/gpu_profile.py (cProfile of the
#    hand-written, eager and replayed G3 steps; the cost of each CuPy read eager makes)
#    into profile.txt, for the G3 target's next change. Reports only; never fails the check.
# 3. Every test whose name says gpu or cublas, on real CuPy (in parallel workers when
#    pytest-xdist is installed): tests/conftest.py uses real CuPy by
#    itself whenever it sees a device (no switch needed). That is the gpu half of
#    the device axis in every file (a marked suite or a test taking the device
#    fixture), tests/test_gpu*.py (the real-GPU smoke test; every fused kernel
#    against the CPU kernel, within a few ulps there) and the G benchmarks' smoke
#    test. A first run compiles CuPy's kernels (cached in ~/.cupy afterwards), so
#    it is the slowest.
# 4. With two GPUs or more: all_reduce of GPU tensors on 2 MPI ranks, one GPU
#    each, through real NCCL (one GPU: skipped, NCCL needs a GPU per rank).
#
# Each step runs under a timeout; everything is also written to $OUT
# (default /tmp/eager_gpu_check): pytest.txt, nccl.txt, bench.txt, summary.txt.
# PYTHON picks the interpreter (default: python, else python3). Exit status: 0 when every
# step passed, else the number of failed steps (2 also: no GPU).
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}"  # the checkout, installed or not
PY="${PYTHON:-$(command -v python || command -v python3)}"
OUT="${OUT:-/tmp/eager_gpu_check}"
mkdir -p "$OUT"
failed=0
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
: > "$OUT/summary.txt"

sees_gpu() { "$PY" -c "import cupy, sys; sys.exit(0 if cupy.cuda.is_available() else 1)" 2>/dev/null; }

if ! sees_gpu; then
    summary "installing the gpu extra (CuPy)"
    timeout 240 "$PY" -m pip install --quiet -e ".[gpu]" || true
fi
if ! sees_gpu; then
    summary "no GPU: CuPy is missing or sees no device (nvidia-smi below); nothing checked"
    nvidia-smi 2>&1 | head -15 | tee -a "$OUT/summary.txt"
    exit 2
fi
"$PY" -c "import cupy; d = cupy.cuda.Device(); print('cupy', cupy.__version__, 'devices',
cupy.cuda.runtime.getDeviceCount(), cupy.cuda.runtime.getDeviceProperties(d.id)['name'].decode())" \
    | tee -a "$OUT/summary.txt"

# -- 2. the G benchmarks, before anything else loads the machine ----------------------
if timeout 150 "$PY" benchmarks/run.py --only G --check > "$OUT/bench.txt" 2>&1; then
    summary "G benchmarks: targets met"
else
    summary "G benchmarks: a target missed or the run failed; see $OUT/bench.txt"
    failed=$((failed + 1))
fi
sed -n '/^GPU (issue #12)/,$p' "$OUT/bench.txt" | tee -a "$OUT/summary.txt"
# -- 2b. the host profile of a GPU step (a report: it fails nothing) ----------------------
if timeout 90 "$PY" benchmarks/gpu_profile.py > "$OUT/profile.txt" 2>&1; then
    summary "host profile of the G3 step: $OUT/profile.txt"
    sed -n '/^== G3 step/,/^== cProfile/p' "$OUT/profile.txt" | sed '$d' | tee -a "$OUT/summary.txt"
else
    summary "host profile of the G3 step: did not finish; see $OUT/profile.txt"
fi
# -- 3. the device-axis suites on the real GPU ---------------------------------------------
# -k "gpu or cublas" over all of tests/: the gpu half of the device axis (the cpu half is CI's),
# tests/test_cublas.py (direct cuBLAS calls against CuPy's matmul), whether a
# file marks the whole suite or single tests take the fixture, and the GPU modules. No -q:
# pyproject's addopts already has one, and -qq drops the "N passed" line read below.
WORKERS=""
if "$PY" -c "import xdist" 2>/dev/null; then
    WORKERS="-n $(( $(nproc) < 12 ? $(nproc) : 12 ))"
fi
if timeout 400 "$PY" -m pytest -p no:warnings --maxfail=20 -rfEs $WORKERS -k "gpu or cublas" tests \
        > "$OUT/pytest.txt" 2>&1; then
    summary "suites on the GPU: passed ($(tail -1 "$OUT/pytest.txt"))"
else
    summary "suites on the GPU: FAILED ($(tail -1 "$OUT/pytest.txt")); see $OUT/pytest.txt"
    failed=$((failed + 1))
fi

# -- 4. NCCL on two GPUs ------------------------------------------------------------------
GPUS=$("$PY" -c "import cupy; print(cupy.cuda.runtime.getDeviceCount())")
MPIEXEC="$(dirname "$(command -v "$PY")")/mpiexec"
[ -x "$MPIEXEC" ] || MPIEXEC="$(command -v mpiexec || true)"
if [ "$GPUS" -ge 2 ] && [ -n "$MPIEXEC" ]; then
    cat > "$OUT/nccl_check.py" <<'EOF'
import numpy as np
import eager
import eager.distributed as dist
from eager.distributed import nccl

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
eager.set_device(f"gpu:{rank}")
t = eager.to_tensor(np.arange(6, dtype=np.float32) + rank)
dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), sum(np.arange(6, dtype=np.float32) + r for r in range(n)))
assert any(c is not None for c in nccl._COMMUNICATORS.values()), "the host path ran, not NCCL"
print(f"rank {rank}: all_reduce through NCCL on gpu:{rank} ok")
EOF
    if timeout 120 "$MPIEXEC" -n 2 "$PY" "$OUT/nccl_check.py" > "$OUT/nccl.txt" 2>&1; then
        summary "NCCL on 2 GPUs: passed"
    else
        summary "NCCL on 2 GPUs: FAILED; see $OUT/nccl.txt"
        failed=$((failed + 1))
    fi
else
    summary "NCCL on 2 GPUs: skipped ($GPUS GPU(s) visible, mpiexec: ${MPIEXEC:-none})"
fi

exit "$failed"
