#!/bin/bash
# Scale-out on a host of four GPUs, in one device command (issue targets:
# docs/benchmarks.md, Scale-out): one solve split by rows over 1 ... 4
# devices (pscr-scale-bench: 3D 511^3 with its kernels, 2D 8191^2, 16383^2,
# 32767^2; the one-device plan beside it), batches of host arrays over the
# devices, weak scaling, and pscr-solve-mpi on 1, 2, 4 ranks with a GPU each
# (random separable 8191^2; 3D 511^3 with dimension 1 random). Pack here:
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-scale-bench build/bin/pscr-solve build/bin/pscr-solve-mpi
# then run (carry .gpu, kind nvidia-h200-x4 or nvidia-h100-x4); the log is
# $OUT/scale-out.txt (or stdout without $OUT):
#   bash scripts/gpu-scale-out.sh                (everything)
#   bash scripts/gpu-scale-out.sh mpi-2d mpi-3d  (parts: split, mpi-2d, mpi-3d; the MPI parts
#       given by name run their ranks both ways, exchanging through the host's shared memory
#       and as MPI messages; with build/rank_setup bundled too, mpi-2d begins with the
#       probe of the ranks' OpenCL start, scripts/probes/rank_setup.cpp)
D=0:0,0:1,0:2,0:3
PARTS=${*:-all}
part() { [ "$PARTS" = all ] || [[ " $PARTS " == *" $1 "* ]]; }
LOG=${OUT:+$OUT/scale-out.txt}
LOG=${LOG:-/dev/stdout}
{
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s]"; }
# on_ranks ARGS OUT PATTERN: pscr-solve-mpi ARGS on 1, 2, 4 ranks, a GPU each,
# the solution to OUT<ranks>.npy, the lines matching PATTERN
on_ranks() {
  for X in memory mpi; do
    for P in 1 2 4; do
      [ $X = mpi ] && [ $P = 1 ] && continue
      echo "-- $P ranks, --host-exchange $X"
      PSCR_DEVICES=$D mpirun --allow-run-as-root -np $P -x PSCR_DEVICES .gpu/run pscr-solve-mpi $1 --host-exchange $X \
        --out $2$P$X.npy 2>&1 | grep -E "$3"
    done
    [ "$PARTS" = all ] && break
  done
}
if part split; then
echo "== 3D 511^3, split over 1 ... 4 devices, with each plan's kernels"
.gpu/run pscr-scale-bench --devices $D --n 511 --dim 3 --reps 9 --batch 0 --profile 2>&1
echo "== 2D 8191^2; batches of 8 right-hand sides of 4095^2 $(stamp)"
.gpu/run pscr-scale-bench --devices $D --n 8191 --reps 9 --batch 8 --batch-n 4095 2>&1
echo "== 2D 16383^2 $(stamp)"
.gpu/run pscr-scale-bench --devices $D --n 16383 --reps 5 --batch 0 2>&1
echo "== weak scaling: P*8192-1 rows by 8191 over P devices $(stamp)"
.gpu/run pscr-scale-bench --devices $D --n 8191 --reps 5 --weak 2>&1
echo "== 2D 32767^2 $(stamp)"
.gpu/run pscr-scale-bench --devices $D --n 32767 --reps 2 --batch 0 2>&1
fi
if part mpi-2d; then
if [ -e .gpu/bin/rank_setup ]; then
  echo "== the ranks' OpenCL start (scripts/probes/rank_setup.cpp) $(stamp)"
  for P in 1 2 4; do mpirun --allow-run-as-root -np $P .gpu/run rank_setup 2>&1; done
fi
echo "== MPI: random separable 8191^2 (tests/pscr_solve_check_lib.py), pscr-solve (twice) then pscr-solve-mpi on 1, 2, 4 ranks, a GPU each $(stamp)"
mkdir -p /tmp/mpi /tmp/mpi3
python3 -c "
import sys; sys.path.insert(0, 'tests'); import numpy as np
from pscr_solve_check_lib import write_system
P = lambda s: '/tmp/mpi/' + s
fs, f, args = write_system(P, np.random.default_rng(1), [8191, 8191], np.float64, 1)
open('/tmp/mpi/args', 'w').write(' '.join(args))"
ARGS="$(cat /tmp/mpi/args) --rhs /tmp/mpi/f.npy --backend opencl --repeat 7"
for K in 1 2; do
  .gpu/run pscr-solve $ARGS --device 0:0 --out /tmp/mpi/s.npy 2>&1 | grep -E "init time|solve time|repeated|residual"
done
on_ranks "$ARGS" /tmp/mpi/m "init time|solve time|repeated|exchanges|ranks:|residual"
python3 -c "
import glob, numpy as np; s = np.load('/tmp/mpi/s.npy')
for f in sorted(glob.glob('/tmp/mpi/m*.npy')): print(f, 'against pscr-solve:', np.abs(s - np.load(f)).max() / np.abs(s).max())"
fi
if part mpi-3d; then
mkdir -p /tmp/mpi3
echo "== MPI: 3D 511^3, dimension 1 a random tridiagonal pencil, 2 and 3 uniform (transformed split) $(stamp)"
python3 -c "
import sys; sys.path.insert(0, 'tests'); import numpy as np
from pscr_solve_check_lib import factor, save_factors
P = lambda s: '/tmp/mpi3/' + s
rng = np.random.default_rng(1); n = 511
def u(): return (np.array([np.full(n, 2.0), np.r_[np.full(n - 1, -1.0), 0.0]]), np.array([np.ones(n), np.zeros(n)]))
args = save_factors(P, [factor(rng, n, np.float64, False), u(), u()])
np.save(P('f.npy'), rng.uniform(-1, 1, (n, n, n)))
open('/tmp/mpi3/args', 'w').write(' '.join(args))"
ARGS="$(cat /tmp/mpi3/args) --rhs /tmp/mpi3/f.npy --backend opencl --repeat 7"
on_ranks "$ARGS" /tmp/mpi3/m "methods|init time|repeated|exchanges|residual"
python3 -c "
import glob, numpy as np; s = np.load('/tmp/mpi3/m1memory.npy')
for f in sorted(glob.glob('/tmp/mpi3/m*.npy')): print(f, 'against 1 rank:', np.abs(s - np.load(f)).max() / np.abs(s).max())"
fi
stamp
} > $LOG 2>&1
[ "$LOG" != /dev/stdout ] && tail -c 3000 $LOG
exit 0
