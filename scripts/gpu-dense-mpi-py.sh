#!/bin/bash
# Dense leading dimensions (KernelParameters::dense_top = k) on graded meshes
# beside cuBLAS fast diagonalisation, distributed planning over MPI ranks, and
# host arrays through the Python package, in one device command. Pack here:
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-bench build/bin/pscr-solve build/bin/pscr-solve-mpi
#   mkdir -p .gpupack/py && tar cJf .gpupack/b.tar.xz .gpu && cp -r build-python/venv/lib/python3.11/site-packages/pscr .gpupack/py/
#   cp ../shared/tools/cupy_fdm_poisson.py tests/pscr_solve_check_lib.py scripts/gpu-dense-mpi-py.sh .gpupack/
# then run (carry .gpupack): rm -rf .gpu && tar xJf .gpupack/b.tar.xz && bash .gpupack/gpu-dense-mpi-py.sh
B=".gpu/run pscr-bench --reps 10 --no-anchors --ratio 1000"; F="python3 .gpupack/cupy_fdm_poisson.py --reps 10 --ratio 1000"
K='^poisson|methods|dense|eigenbasis|transpose|line_solve|form_solve'
echo "== 2D graded (cell ratio 1000): dense_top 0 and 1, then cuBLAS FDM"
for k in 0 1; do echo "-- dense_top=$k"; $B --dim 2 --sizes 255,511,767,1023 --set dense_top=$k 2>&1 | grep -E "$K"; done
$F --dim 2 --precision double --sizes 255,511,767,1023 2>&1 | tail -4
for k in 0 1; do echo "-- float dense_top=$k"; $B --dim 2 --precision float --sizes 511,1023 --set dense_top=$k 2>&1 | grep -E "$K"; done
$F --dim 2 --precision float --sizes 511,1023 2>&1 | tail -2
echo "== 3D graded: dense_top 1 and 2, then cuBLAS FDM"
for k in 1 2; do echo "-- dense_top=$k"; $B --dim 3 --sizes 63,127,255 --set dense_top=$k 2>&1 | grep -E "$K"; done
$F --dim 3 --precision double --sizes 63,127,255 2>&1 | tail -3
for k in 1 2; do echo "-- float dense_top=$k"; $B --dim 3 --precision float --sizes 127,255 --set dense_top=$k 2>&1 | grep -E "$K"; done
$F --dim 3 --precision float --sizes 127,255 2>&1 | tail -2
echo "== MPI planning: random separable 8191^2, serial pscr-solve then pscr-solve-mpi on 1, 2, 4 ranks (one GPU)"
mkdir -p /tmp/mpi
python3 -c "
import sys; sys.path.insert(0, '.gpupack'); import numpy as np
from pscr_solve_check_lib import write_system
P = lambda s: '/tmp/mpi/' + s
fs, f, args = write_system(P, np.random.default_rng(1), [8191, 8191], np.float64, 1)
open('/tmp/mpi/args', 'w').write(' '.join(args))"
ARGS="$(cat /tmp/mpi/args) --rhs /tmp/mpi/f.npy --backend opencl"
.gpu/run pscr-solve $ARGS --out /tmp/mpi/s.npy 2>&1 | grep -E "init time|solve time|time spent"
for P in 1 2 4; do echo "-- $P ranks"; mpirun --allow-run-as-root -np $P .gpu/run pscr-solve-mpi $ARGS --out /tmp/mpi/m.npy 2>&1 | grep -E "init time|solve time|ranks|threads"; done
python3 -c "import numpy as np; s=np.load('/tmp/mpi/s.npy'); m=np.load('/tmp/mpi/m.npy'); print('4 ranks against serial:', np.abs(s-m).max()/np.abs(s).max())"
echo "== Python host arrays"
python3 --version
PYTHONPATH=.gpupack/py .gpu/run python3 examples/python/host_arrays.py --sizes 4095,8191 --batch 8 2>&1 | tail -12
