#!/usr/bin/env python3
"""The pscr-denoise command line: a grey and a colour PNG give outputs of the
input's size and a better PSNR against the clean image than the noisy input
(--add-noise, --clean), and bad input -> exit status 2 with a message naming
the problem."""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish, png_size, write_png

EXE = sys.argv[1]


def run(args):
    return subprocess.run([EXE] + args, capture_output=True, text=True, timeout=600)


def scene(w, h, x, y):
    """A bright square on a ramp (0-255)."""
    v = 50 + 80 * x / w
    if w // 4 < x < 3 * w // 4 and h // 4 < y < 3 * h // 4:
        v = 220
    return int(v)


with tempfile.TemporaryDirectory() as tmp:
    P = lambda s: os.path.join(tmp, s)
    W, H = 40, 32
    write_png(P("grey.png"), W, H, [[scene(W, H, x, y) for x in range(W)] for y in range(H)], False)
    write_png(P("colour.png"), W, H,
              [sum(([scene(W, H, x, y), 255 - scene(W, H, x, y), 128] for x in range(W)), []) for y in range(H)], True)
    for name, extra in (("grey", []), ("colour", []), ("grey", ["--precision", "float"]), ("grey", ["--host"])):
        r = run([P(name + ".png"), P(name + "-out.png"), "--add-noise", "0.1", "--noisy", P(name + "-noisy.png"),
                 "--clean", P(name + ".png")] + extra)
        name = " ".join([name] + extra)
        check(f"{name}: exit 0", r.returncode == 0, f"rc={r.returncode} {r.stderr.strip()[:300]!r}")
        base = name.split()[0]
        check(f"{name}: output of the input's size", png_size(P(base + "-out.png")) == (W, H))
        check(f"{name}: noisy input written", png_size(P(base + "-noisy.png")) == (W, H))
        m = re.search(r"input ([\d.]+) dB, output ([\d.]+) dB", r.stdout)
        check(f"{name}: PSNR improves by more than 5 dB", m is not None and float(m.group(2)) > float(m.group(1)) + 5,
              r.stdout[-300:])
        channels = len(re.findall(r"channel \d", r.stdout))
        check(f"{name}: channels denoised", channels == (3 if name.startswith("colour") else 1))

    write_png(P("tiny.png"), 1, 5, [[9] for _ in range(5)], False)
    with open(P("bad.png"), "wb") as f:
        f.write(b"not a png")
    errors = [
        ([P("missing.png"), P("o.png")], "missing.png"),
        ([P("bad.png"), P("o.png")], "bad.png"),
        ([P("tiny.png"), P("o.png")], "2 x 2"),
        ([P("grey.png"), os.path.join(tmp, "no", "such", "dir", "o.png")], "o.png"),
        ([P("grey.png"), P("o.png"), "--clean", P("tiny.png")], "--clean"),
        ([P("grey.png"), P("o.png"), "--model", "tv"], "model"),
        ([P("grey.png"), P("o.png"), "--r0", "0"], "--r0"),
        ([P("grey.png"), P("o.png"), "--noisy", P("n.png")], "--noisy"),
        ([P("grey.png")], "OUTPUT"),
        ([P("grey.png"), P("o.png"), "--bogus"], "--bogus"),
        ([P("grey.png"), P("o.png"), "--precision", "half"], "--precision"),
        ([P("grey.png"), P("o.png"), "--precision", "float", "--host"], "--precision"),
    ]
    for args, needle in errors:
        r = run(args)
        check(f"error {' '.join(os.path.basename(a) for a in args)}", r.returncode == 2 and needle in r.stderr,
              f"rc={r.returncode} stderr={r.stderr.strip()[:300]!r}")
finish()
