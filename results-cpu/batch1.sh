export PYTHONPATH=. OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
run() { echo "=== $*"; /usr/bin/time -f "wall %e s" taskset -c 1 /work/main/.venv/bin/python results-cpu/diag.py "$@" 2>&1 | grep -vE "since_last"; }
run coda/p=4 300 100
run coda/p=4 300 100 eta=0.5
run coda/p=4 300 100 eta=1.0
run coda/p=4 300 100 score=linear
run coda/p=4 300 100 a0=0.5 b0=0.5
run coda/p=4 300 100 eta=2.0
