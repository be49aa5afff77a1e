#!/usr/bin/env bash
# The FCSG paper's Omniglot MAML experiment (fcsg-maml-omniglot: ten arms, three seeds) on one GPU,
# one process per (arm, seed), PAR of them at a time sharing the GPU:
#
#   FEDCOMP_OMNIGLOT=DIR bash bench/gpu_maml.sh T EVAL_EVERY PAR SECONDS [OUTDIR]
#
# Each run is `fedcomp neural run fcsg-maml-omniglot --device cuda --iterations T --eval-every
# EVAL_EVERY --seeds 1 --seed S --arm A` into its own folder (processes never share a manifest).
# Runs already stored in OUTDIR (default results/neural/fcsg-maml-omniglot) at this budget are
# skipped; the others start arm by arm (its three seeds together), so a time limit of SECONDS
# (each run is stopped when it is reached) tends to leave whole arms. The finished runs' parts
# are then gathered into OUTDIR and one command over the arms whose every seed is stored writes
# its manifest, table and figure: it only resumes stored runs, so it computes nothing. Runs of
# another budget already in OUTDIR stay in its store, unused. With $OUT set (a lent machine of the
# device tool), the new runs' parts also go to $OUT/fcsg-maml-omniglot-parts.tar: one file, since
# the tool returns a limited number of files and its working copy does not keep untracked results
# from one call to the next (a second call would recompute them). Unpack them here with
#   tar xf fcsg-maml-omniglot-parts.tar --strip-components 2 -C OUTDIR/store
# Measured at T=100, EVAL_EVERY=20: on one H100, 15 processes took 250-310 s a run; on one H200
# (27 Nov 2026), 6 processes stored 15 runs in 501 s (90-182 s a run), 3 processes 9 runs in
# 265 s (60-91 s a run): the GPU is shared, so the runs a minute hold is about the same.
set -u
T=$1; EVAL=$2; PAR=$3; LIMIT=$4
dest=${5:-results/neural/fcsg-maml-omniglot}
mkdir -p "$dest/store"
name=fcsg-maml-omniglot
work=$(mktemp -d /tmp/fedcomp-maml.XXXX)
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
arms="fcsg fcsg-m acc-fcsg-m local-scgd local-scgdm"
arms="$arms $(for a in $arms; do printf '%s/5-shot ' "$a"; done)"
deadline=$(( $(date +%s) + LIMIT ))   # epoch seconds: each job is a new shell
export T EVAL name work deadline
t0=$SECONDS
missing() {  # the (seed, arm) runs not yet in OUTDIR at this budget, arm by arm, one a line
  python3 - "$dest" "$T" "$EVAL" $arms <<'EOF'
import sys
from fedcomp.neural.store import run_id
from fedcomp.runner.store import ResultStore
dest, T, E, arms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
have = ResultStore(dest + "/store").finished()
for a in arms:
    for s in range(3):
        if run_id("fcsg-maml-omniglot", a, s, T, E) not in have:
            print(s, a)
EOF
}
# arm by arm: a time limit leaves whole arms
pending=$(missing)
echo "$pending" | grep . |
  xargs -P "$PAR" -L 1 bash -c '
    left=$((deadline - $(date +%s))); [ "$left" -gt 0 ] || exit 0
    dir="$work/${1//\//_}-$0"
    timeout "$left" python3 -m fedcomp neural run "$name" --device cuda --iterations "$T" \
      --eval-every "$EVAL" --seeds 1 --seed "$0" --arm "$1" --data-dir "$FEDCOMP_OMNIGLOT" \
      --out "$dir" --json > "$dir.json" 2> "$dir.err" || echo "run $1 seed $0: exit $?"'
echo "== $(echo "$pending" | grep -c .) runs pending: $((SECONDS - t0)) s wall for T=$T, $PAR processes"
python3 - "$work" <<'EOF'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    try:
        r = json.load(open(f))
    except ValueError:
        continue
    acc = {k: round(v, 4) for k, v in r["metrics"].items() if k.endswith("test_accuracy")}
    print(f"{f.rsplit('/', 1)[1][:-5]:<24} {r['seconds']:7.1f} s in the run loop  {acc}")
EOF
cp "$work"/*/store/part-*.parquet "$dest/store/" 2>/dev/null
if [ -n "${OUT:-}" ]; then
  (cd "$work" && tar cf "$OUT/fcsg-maml-omniglot-parts.tar" -- */store/part-*.parquet 2>/dev/null)
fi
# the arms none of whose seeds is missing
incomplete=$(missing | cut -d' ' -f2- | sort -u)
done_arms=$(for a in $arms; do grep -qxF "$a" <<< "$incomplete" || printf -- '--arm %s ' "$a"; done)
echo "== arms with three seeds: ${done_arms:-none}"
if [ -n "$done_arms" ]; then
  # shellcheck disable=SC2086
  python3 -m fedcomp neural run "$name" --device cuda --iterations "$T" --eval-every "$EVAL" \
    --seeds 3 $done_arms --data-dir "$FEDCOMP_OMNIGLOT" --out "$dest"
fi
