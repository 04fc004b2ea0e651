#!/bin/bash
# Dense leading dimensions (KernelParameters::dense_top = k) on graded meshes
# beside cuBLAS fast diagonalisation, and host arrays through the Python
# package, in one device command (its MPI planning part, at 5062fae, is now in
# scripts/gpu-scale-out.sh). Pack here:
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-bench
#   mkdir -p .gpupack/py && tar cJf .gpupack/b.tar.xz .gpu && cp -r build-python/venv/lib/python3.11/site-packages/pscr .gpupack/py/
#   cp ../shared/tools/cupy_fdm_poisson.py scripts/gpu-dense-py.sh .gpupack/
# then run (carry .gpupack): rm -rf .gpu && tar xJf .gpupack/b.tar.xz && bash .gpupack/gpu-dense-py.sh
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
echo "== Python host arrays"
python3 --version
PYTHONPATH=.gpupack/py .gpu/run python3 examples/python/host_arrays.py --sizes 4095,8191 --batch 8 2>&1 | tail -12
