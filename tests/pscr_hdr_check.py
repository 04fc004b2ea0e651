#!/usr/bin/env python3
"""The pscr-hdr command line: every output kind is written and readable
(PNG header, EXR read back as an input), iterative solvers report convergence,
and every kind of bad input ends with its exit status and a message naming the
problem (2: usage, 1: input or parameters, 3: solver did not converge)."""
import os
import struct
import subprocess
import sys
import tempfile

from checks import check, finish

EXE = sys.argv[1]


def run(*args):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


def expect(name, args, rc, *words):
    code, text = run(*args)
    missing = [w for w in words if w not in text]
    check(name, code == rc and not missing, f"exit {code} (want {rc}), missing {missing}: {text.strip()[-400:]}")
    return text


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    w, h, depth, colour = struct.unpack(">IIBB", head[16:26])
    return w, h, depth, colour


with tempfile.TemporaryDirectory() as d:
    out = lambda name: os.path.join(d, name)
    # outputs
    expect("fattal png", ["scene:window:96x64", out("f.png"), "--save-input", out("in.hdr")], 0, "converged")
    expect("fattal float solve", ["scene:window:96x64", out("f32.png"), "--precision", "float", "--times"], 0,
           "converged", "plan", "wall from process start")
    check("float solve png header", png_size(out("f32.png")) == (96, 64, 8, 2))
    expect("bad precision", ["scene:window:96x64", out("x.png"), "--precision", "half"], 2, "--precision")
    check("png header", png_size(out("f.png")) == (96, 64, 8, 2), str(png_size(out("f.png"))))
    expect("reinhard png", ["--operator", "reinhard", out("in.hdr"), out("r.png")], 0, "reinhard")
    check("reinhard png header", png_size(out("r.png")) == (96, 64, 8, 2))
    expect("linear exr", ["scene:lamps:50x40", out("lin.exr")], 0, "fattal")
    with open(out("lin.exr"), "rb") as f:
        check("exr magic", f.read(4) == b"\x76\x2f\x31\x01")
    # the linear result is a valid HDR input again
    expect("exr as input", [out("lin.exr"), out("again.pfm"), "--operator", "reinhard"], 0, "50x40")
    expect("stage times", ["scene:window:33x17", out("t.png"), "--times"], 0, "poisson solve", "download")
    # solvers
    expect("multigrid converges", ["scene:window:64x48", out("mg.png"), "--solver", "mg-v", "--tol", "1e-8"], 0,
           "solver mg-v", "converged", "relative residual")
    expect("iteration limit", ["scene:window:64x48", out("j.png"), "--solver", "jacobi", "--max-iter", "3"], 3,
           "NOT converged")
    # usage errors: exit 2
    expect("no output", ["scene:window:8x8"], 2, "needs INPUT and OUTPUT")
    expect("unknown option", ["--frobnicate", "scene:window:8x8", out("x.png")], 2, "unknown option --frobnicate")
    expect("not a number", ["--beta", "0.9x", "scene:window:8x8", out("x.png")], 2, "--beta", "0.9x")
    expect("missing value", ["scene:window:8x8", out("x.png"), "--alpha"], 2, "--alpha needs a value")
    expect("output extension", ["scene:window:8x8", out("x.jpg")], 2, "x.jpg", ".png")
    expect("operator", ["--operator", "drago", "scene:window:8x8", out("x.png")], 2, "drago")
    expect("solver name", ["--solver", "cg", "scene:window:8x8", out("x.png")], 2, "unknown solver 'cg'", "mg-v")
    # input and parameter errors: exit 1, naming the problem
    expect("missing file", [out("nothing.hdr"), out("x.png")], 1, "nothing.hdr")
    with open(out("bad.hdr"), "wb") as f:
        f.write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 10 +X 10\n\x02\x02")
    expect("truncated file", [out("bad.hdr"), out("x.png")], 1, "bad.hdr", "truncated")
    with open(out("nan.pfm"), "wb") as f:
        f.write(b"PF\n2 2\n-1.0\n" + struct.pack("<12f", 1, 1, 1, 1, float("nan"), 1, 1, 1, 1, 1, 1, 1))
    expect("NaN pixel", [out("nan.pfm"), out("x.png")], 1, "NaN or infinite")
    expect("beta range", ["--beta", "1.5", "scene:window:8x8", out("x.png")], 1, "beta")
    expect("scene name", ["scene:forest:8x8", out("x.png")], 1, "forest")
    expect("unwritable output", ["scene:window:8x8", os.path.join(d, "no", "such", "x.png")], 1, "x.png")

finish()
