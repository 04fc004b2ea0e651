#!/bin/bash
# Periodic channels against the channel solvers of CFD codes (cuFFT + Thomas,
# ../shared/tools/cupy_channel_poisson.py and scripts/anchors/cupy_channel_poisson_2d.py)
# and host-array solves (pscr-bench --host-batch), in one device command. Pack here:
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-bench build/bin/pscr-solve
#   mkdir -p .gpupack && tar cJf .gpupack/b.tar.xz .gpu && cp ../shared/tools/cupy_channel_poisson.py scripts/anchors/cupy_channel_poisson_2d.py scripts/gpu-channel-host.sh .gpupack/
# then run (carry .gpupack): rm -rf .gpu && tar xJf .gpupack/b.tar.xz && bash .gpupack/gpu-channel-host.sh
B=".gpu/run pscr-bench --reps 10 --no-anchors --problem channel --ratio 30"
K='^channel|methods|fourier|sine|line_solve|dense|eigenbasis|transpose'
echo "== channel 3D: pscr-bench --problem channel then cuFFT + Thomas"
for p in double float; do
  $B --dim 3 --precision $p --sizes 256,512 2>&1 | grep -E "$K"
  for s in 256,255,256 512,511,512; do python3 .gpupack/cupy_channel_poisson.py --shape $s --precision $p --ratio 30 --reps 10 2>&1 | tail -1; done
done
echo "== channel 2D"
for p in double float; do
  $B --dim 2 --precision $p --sizes 4096 2>&1 | grep -E "$K"
  python3 .gpupack/cupy_channel_poisson_2d.py --shape 4096,4095 --precision $p --ratio 30 --reps 10 2>&1 | tail -1
done
echo "== host arrays"
.gpu/run pscr-bench --reps 10 --no-anchors --dim 2 --sizes 4095,8191 --host-batch 8 2>&1 | grep -vE "^\s+[a-z_]+ +[0-9.]+ %"
python3 -c "import numpy as np; n=8191; h=1/(n+1); A=np.zeros((2,n)); A[0]=2/h; A[1,:n-1]=-1/h; M=np.zeros((2,n)); M[0]=h; np.save('/tmp/a.npy',A); np.save('/tmp/m.npy',M); np.save('/tmp/f.npy', np.random.default_rng(1).standard_normal((n,n)))"
.gpu/run pscr-solve --A1 /tmp/a.npy --M1 /tmp/m.npy --A2 /tmp/a.npy --M2 /tmp/m.npy --rhs /tmp/f.npy --out /tmp/u.npy --backend opencl 2>&1 | tail -12
