#!/usr/bin/env python3
"""Runs pscr-hdr and pfstmo_fattal02 (Debian pfstmo) on the same synthetic
scene with matching parameters; reports their times and image differences and
writes the two results side by side.

usage: compare_pfstmo.py PSCR_HDR [--size 1024x768] [--scene window] [--out DIR]
                         [--alpha 1] [--beta 0.9] [--saturation 0.8] [--noise 0.001]
                         [--detail-level 0]
Needs Debian packages pfstools, pfstmo and python3-pil (not part of the build:
apt-get install pfstools pfstmo python3-pil).
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
from PIL import Image


def run(cmd, **kw):
    t = time.perf_counter()
    p = subprocess.run(cmd, check=True, capture_output=True, **kw)
    return time.perf_counter() - t, p


def luminance(rgb8):
    x = rgb8.astype(np.float64) / 255
    lin = np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pscr_hdr")
    ap.add_argument("--size", default="1024x768")
    ap.add_argument("--scene", default="window")
    ap.add_argument("--out", default="compare-pfstmo")
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--beta", type=float, default=0.9)
    ap.add_argument("--saturation", type=float, default=0.8)
    ap.add_argument("--noise", type=float, default=0.001)
    ap.add_argument("--detail-level", type=int, default=0)
    ap.add_argument("--device", default="")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    scene = os.path.join(a.out, "scene.hdr")
    ours_png = os.path.join(a.out, "pscr-hdr.png")
    dev = ["--device", a.device] if a.device else []
    t_ours, p = run([a.pscr_hdr, f"scene:{a.scene}:{a.size}", ours_png, "--save-input", scene,
                     "--alpha", str(a.alpha), "--beta", str(a.beta), "--saturation", str(a.saturation),
                     "--noise", str(a.noise), "--detail-level", str(a.detail_level), "--coarsest", "8",
                     "--black", "0.1", "--white", "99.5"] + dev)
    m = re.search(r": ([0-9.]+) ms \(plan ([0-9.]+) s\)", p.stdout.decode())
    pipeline_ms, plan_s = float(m.group(1)), float(m.group(2))
    # pfstmo: linear output, gamma 1 on luminance to match; display gamma 2.2
    pfs_in = os.path.join(a.out, "scene.pfs")
    with open(pfs_in, "wb") as f:
        subprocess.run(["pfsinrgbe", scene], stdout=f, check=True)
    pfs_out = os.path.join(a.out, "fattal02.pfs")
    with open(pfs_in, "rb") as fi, open(pfs_out, "wb") as fo:
        t = time.perf_counter()
        subprocess.run(["pfstmo_fattal02", "--alpha", str(a.alpha), "--beta", str(a.beta), "--saturation",
                        str(a.saturation), "--noise", str(a.noise), "--detail-level", str(a.detail_level),
                        "--gamma", "1", "--black-point", "0.1", "--white-point", "0.5"],
                       stdin=fi, stdout=fo, check=True)
        t_pfs = time.perf_counter() - t
    ppm = os.path.join(a.out, "pfstmo.ppm")
    with open(pfs_out, "rb") as fi:
        g = subprocess.run(["pfsgamma", "-g", "2.2"], stdin=fi, capture_output=True, check=True)
        subprocess.run(["pfsoutppm", ppm], input=g.stdout, check=True)
    theirs = np.asarray(Image.open(ppm).convert("RGB"))
    ours = np.asarray(Image.open(ours_png).convert("RGB"))
    Image.fromarray(theirs).save(os.path.join(a.out, "pfstmo.png"))
    diff = np.abs(ours.astype(int) - theirs.astype(int))
    mse = np.mean(diff.astype(float) ** 2)
    psnr = 10 * np.log10(255 ** 2 / mse) if mse > 0 else float("inf")
    lo, lt = luminance(ours), luminance(theirs)
    corr = np.corrcoef(np.log(lo + 1e-4).ravel(), np.log(lt + 1e-4).ravel())[0, 1]
    side = np.concatenate([ours, theirs, np.clip(diff * 4, 0, 255).astype(np.uint8)], axis=1)
    Image.fromarray(side).save(os.path.join(a.out, "side-by-side.png"))
    print(f"scene {a.scene} {a.size}, alpha {a.alpha}, beta {a.beta}, saturation {a.saturation}, noise {a.noise}, "
          f"detail level {a.detail_level}, coarsest pyramid side 8 (pfstmo's with its DCT solver)")
    print(f"pscr-hdr:        {1e3 * t_ours:9.1f} ms whole process (OpenCL set-up and plan {1e3 * plan_s:.1f} ms, "
          f"pipeline {pipeline_ms:.1f} ms)")
    print(f"pfstmo_fattal02: {1e3 * t_pfs:9.1f} ms (the operator alone, pfs streams in and out)")
    print(f"difference: mean |d| {diff.mean():.2f} of 255, PSNR {psnr:.1f} dB, "
          f"correlation of log luminance {corr:.3f}")
    print(f"wrote {os.path.join(a.out, 'side-by-side.png')} (pscr-hdr | pfstmo | 4x |difference|)")


if __name__ == "__main__":
    sys.exit(main())
