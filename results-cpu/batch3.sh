export PYTHONPATH=. OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
while pgrep -f "bash results-cpu/batch2.sh" >/dev/null; do sleep 2; done
run() { echo "=== $*"; /usr/bin/time -f "wall %e s" taskset -c 1 /work/main/.venv/bin/python results-cpu/diag.py "$@" 2>&1 | grep -vE "since_last"; }
run localscgdam/p=4 300 100 score=linear gamma_x=10 gamma_y=10
run localsgdam/p=4 300 100 score=linear gamma_x=10 gamma_y=10
run coda/p=4 300 100 score=linear eta=2.0
run localscgdam/p=4 20 5 rho=1.0
