#!/bin/bash
# Scale-out on a host of four GPUs, in one device command (issue targets:
# docs/benchmarks.md, Scale-out): one solve split by rows over 1 ... 4
# devices (pscr-scale-bench: 2D 8191^2, 16383^2, 32767^2, 3D 511^3; the
# one-device plan beside it), batches of host arrays over the devices, and
# pscr-solve-mpi on 1, 2, 4 ranks with a GPU each. Pack here:
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-scale-bench build/bin/pscr-solve build/bin/pscr-solve-mpi
#   mkdir -p .gpupack && tar cJf .gpupack/b.tar.xz .gpu && cp tests/pscr_solve_check_lib.py scripts/gpu-scale-out.sh .gpupack/
# then run (carry .gpupack, kind nvidia-h100-x4):
#   rm -rf .gpu && tar xJf .gpupack/b.tar.xz && bash .gpupack/gpu-scale-out.sh
D=0:0,0:1,0:2,0:3
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
echo "== 2D 8191^2, split over 1 ... 4 devices; batches of 8 right-hand sides of 4095^2"
.gpu/run pscr-scale-bench --devices $D --n 8191 --reps 9 --batch 8 --batch-n 4095 2>&1
echo "== 2D 16383^2"
.gpu/run pscr-scale-bench --devices $D --n 16383 --reps 5 --batch 0 2>&1
echo "== 3D 511^3"
.gpu/run pscr-scale-bench --devices $D --n 511 --dim 3 --reps 5 --batch 0 2>&1
echo "== weak scaling: P*8192-1 rows by 8191 over P devices"
.gpu/run pscr-scale-bench --devices $D --n 8191 --reps 5 --weak 2>&1
echo "== 2D 32767^2"
.gpu/run pscr-scale-bench --devices $D --n 32767 --reps 2 --batch 0 2>&1
echo "== MPI: random separable 8191^2 (tests/pscr_solve_check_lib.py), pscr-solve then pscr-solve-mpi on 1, 2, 4 ranks, a GPU each"
mkdir -p /tmp/mpi
python3 -c "
import sys; sys.path.insert(0, '.gpupack'); import numpy as np
from pscr_solve_check_lib import write_system
P = lambda s: '/tmp/mpi/' + s
fs, f, args = write_system(P, np.random.default_rng(1), [8191, 8191], np.float64, 1)
open('/tmp/mpi/args', 'w').write(' '.join(args))"
ARGS="$(cat /tmp/mpi/args) --rhs /tmp/mpi/f.npy --backend opencl --repeat 7"
.gpu/run pscr-solve $ARGS --device 0:0 --out /tmp/mpi/s.npy 2>&1 | grep -E "init time|solve time|repeated|residual"
for P in 1 2 4; do
  echo "-- $P ranks"
  PSCR_DEVICES=$D mpirun --allow-run-as-root -np $P -x PSCR_DEVICES .gpu/run pscr-solve-mpi $ARGS --out /tmp/mpi/m$P.npy 2>&1 |
    grep -E "init time|solve time|repeated|ranks:|residual"
done
python3 -c "
import numpy as np; s = np.load('/tmp/mpi/s.npy')
for P in (1, 2, 4): m = np.load('/tmp/mpi/m%d.npy' % P); print(P, 'ranks against pscr-solve:', np.abs(s - m).max() / np.abs(s).max())"
