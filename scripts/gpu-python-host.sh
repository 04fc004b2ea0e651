#!/bin/bash
# Host arrays through the Python package against the same solves from C++
# (pscr-bench --host-batch) on the GPU machine, the package's extension
# compiled there against its own Python (a static, position-independent
# libpscr built here). Pack here:
#   cmake -S . -B /tmp/pystatic -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSCR_STATIC=ON -DPSCR_BUILD_TESTS=OFF \
#     -DPSCR_BUILD_EXAMPLES=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON && ninja -C /tmp/pystatic pscr
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-bench
#   mkdir -p .gpupack/inc && tar cJf .gpupack/b.tar.xz .gpu && cp /tmp/pystatic/src/libpscr.a .gpupack/ \
#     && cp -r /tmp/pystatic/include/pscr .gpupack/inc/ && cp scripts/gpu-python-host.sh .gpupack/
# then run (carry .gpupack): rm -rf .gpu && tar xJf .gpupack/b.tar.xz && bash .gpupack/gpu-python-host.sh
set -e
PYINC=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
PBINC=$(python3 -c "import pybind11; print(pybind11.get_include())")
EXT=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
LIB=/tmp/pylib; mkdir -p $LIB /tmp/py/pscr
# the bundle's numerical libraries and OpenCL loader, not its older C++ runtime
for l in liblapacke.so.3 liblapack.so.3 libblas.so.3 libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libOpenCL.so.1; do
  ln -sf "$PWD/.gpu/lib/$l" $LIB/$l
done
cp python/pscr/*.py /tmp/py/pscr/
g++ -O3 -std=c++17 -fPIC -shared -fopenmp -fvisibility=hidden -Iinclude -I.gpupack/inc -I"$PYINC" -I"$PBINC" \
  python/src/core.cpp .gpupack/libpscr.a $LIB/liblapacke.so.3 $LIB/liblapack.so.3 $LIB/libopenblas.so.0 \
  $LIB/libOpenCL.so.1 -Wl,-rpath,$LIB -o /tmp/py/pscr/_core$EXT
export OCL_ICD_VENDORS="$PWD/.gpu/vendors" OCL_ICD_FILENAMES=
echo "== C++: pscr-bench --host-batch 8"
.gpu/run pscr-bench --reps 10 --no-anchors --dim 2 --sizes 4095,8191 --host-batch 8 2>&1 | grep -E "^poisson|one at a time|batch of|device-resident|page-locked|floor"
echo "== Python: examples/python/host_arrays.py"
PYTHONPATH=/tmp/py python3 examples/python/host_arrays.py --sizes 4095,8191 --batch 8 2>&1 | tail -14
