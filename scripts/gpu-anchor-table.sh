#!/bin/bash
# The speed and accuracy tables of README.md (VkFFT DST-I and cuBLAS fast
# diagonalisation anchors) in one device command on the GPU machine. Pack here:
#   ../shared/tools/build-vkfft-anchor /tmp/vkfft_dst_poisson
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-bench build/bin/pscr-accuracy /tmp/vkfft_dst_poisson
#   mkdir -p .gpupack && tar cJf .gpupack/b.tar.xz .gpu && cp ../shared/tools/cupy_fdm_poisson.py \
#     ../shared/tools/cupy_channel_poisson.py scripts/anchors/cupy_channel_poisson_2d.py scripts/gpu-anchor-table.sh .gpupack/
# then run (carry .gpupack): rm -rf .gpu && tar xJf .gpupack/b.tar.xz && bash .gpupack/gpu-anchor-table.sh
B=".gpu/run pscr-bench --reps 10 --no-anchors"; V=".gpu/run vkfft_dst_poisson --reps 10"; F="python3 .gpupack/cupy_fdm_poisson.py --reps 10 --ratio 1000"
K='^poisson|methods|sine|fourier|line_solve|form_solve|dense|transpose|^  n=|median'
echo "== uniform, Dirichlet: pscr-bench then VkFFT DST-I"
$B --dim 2 --sizes 1023,2047,4095,8191 2>&1 | grep -E "$K"; $V --dim 2 --precision double --sizes 1023,2047,4095,8191 2>&1 | grep -E "n=|VkFFT"
$B --dim 2 --precision float --sizes 2047,4095,8191 2>&1 | grep -E "$K"; $V --dim 2 --precision float --sizes 2047,4095,8191 2>&1 | grep -E "n=|VkFFT"
$B --dim 3 --sizes 63,127,255,511 2>&1 | grep -E "$K"; $V --dim 3 --precision double --sizes 63,127,255,511 2>&1 | grep -E "n=|VkFFT"
$B --dim 3 --precision float --sizes 127,255,511 2>&1 | grep -E "$K"; $V --dim 3 --precision float --sizes 127,255,511 2>&1 | grep -E "n=|VkFFT"
echo "== graded (cell ratio 1000): pscr-bench --ratio 1000 then cuBLAS FDM"
$B --ratio 1000 --dim 2 --sizes 511,1023,2047,4095 2>&1 | grep -E "$K"; $F --dim 2 --precision double --sizes 511,1023,2047,4095 2>&1 | tail -4
$B --ratio 1000 --dim 2 --precision float --sizes 1023 2>&1 | grep -E "$K"; $F --dim 2 --precision float --sizes 1023 2>&1 | tail -1
$B --ratio 1000 --dim 3 --sizes 63,127,255 2>&1 | grep -E "$K"; $F --dim 3 --precision double --sizes 63,127,255 2>&1 | tail -3
$B --ratio 1000 --dim 3 --precision float --sizes 255 2>&1 | grep -E "$K"; $F --dim 3 --precision float --sizes 255 2>&1 | tail -1
echo "== channel (periodic x and z by Fourier transforms, walls graded 30:1): pscr-bench --problem channel then cuFFT + Thomas"
C=".gpu/run pscr-bench --reps 10 --no-anchors --problem channel --ratio 30"
for p in double float; do
  $C --dim 3 --precision $p --sizes 256,512 2>&1 | grep -E "$K|^channel"
  for s in 256,255,256 512,511,512; do python3 .gpupack/cupy_channel_poisson.py --shape $s --precision $p --ratio 30 --reps 10 2>&1 | tail -1; done
  $C --dim 2 --precision $p --sizes 4096 2>&1 | grep -E "$K|^channel"
  python3 .gpupack/cupy_channel_poisson_2d.py --shape 4096,4095 --precision $p --ratio 30 --reps 10 2>&1 | tail -1
done
echo "== accuracy (forward error against long-double answers, FFTW DST-I of the same precision)"
.gpu/run pscr-accuracy --backend opencl --dim 2 --sizes 1023,2047,4095 --problem uniform 2>&1 | tail -3
.gpu/run pscr-accuracy --backend opencl --dim 3 --sizes 127,255 --problem uniform 2>&1 | tail -2
.gpu/run pscr-accuracy --backend opencl --dim 2 --sizes 1023 --problem graded 2>&1 | tail -1
