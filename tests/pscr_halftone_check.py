#!/usr/bin/env python3
"""The pscr-halftone command line: outputs (a PNG of the input's size, the
points file), the documented all-white result, and bad input -> exit status 2
with a message naming the problem."""
import os
import subprocess
import sys
import tempfile

from checks import check, finish, png_size, write_png

EXE = sys.argv[1]


def run(args):
    return subprocess.run([EXE] + args, capture_output=True, text=True, timeout=600)


with tempfile.TemporaryDirectory() as tmp:
    P = lambda s: os.path.join(tmp, s)
    w, h = 40, 30
    grey = [[int(255 * (0.2 + 0.7 * x / w)) for x in range(w)] for y in range(h)]
    write_png(P("grey.png"), w, h, grey, False)
    rgb = [[c for x in range(w) for c in (int(255 * x / w), 90, 200)] for y in range(h)]
    write_png(P("rgb.png"), w, h, rgb, True)
    write_png(P("white.png"), w, h, [[255] * w for _ in range(h)], False)
    ink = sum(1 - v / 255 for row in grey for v in row)

    for name, src, extra in [("grey, host", "grey.png", ["--host"]), ("colour, device", "rgb.png", [])]:
        r = run([P(src), P("out.png"), "--iterations", "20", "--points", P("pts.txt")] + extra)
        check(f"{name}: runs", r.returncode == 0, r.stderr)
        check(f"{name}: output size", png_size(P("out.png")) == (w, h), str(png_size(P("out.png"))))
        pts = [tuple(map(float, line.split())) for line in open(P("pts.txt"))]
        inside = all(0 <= x <= w - 1 and 0 <= y <= h - 1 for x, y in pts)
        check(f"{name}: points file", len(pts) > 0 and inside, f"{len(pts)} points")
        if name.startswith("grey"):
            check(f"{name}: one dot per pixel of ink", len(pts) == round(ink), f"{len(pts)} vs {ink:.1f}")
    r = run([P("grey.png"), P("out.png"), "--host", "--iterations", "5", "--dots", "100", "--points", P("pts.txt")])
    check("--dots", r.returncode == 0 and sum(1 for _ in open(P("pts.txt"))) == 100, r.stderr)
    r = run([P("grey.png"), P("out.png"), "--host", "--iterations", "5", "--bench", "--check-forces", "50",
             "--compare", P("fs.png")])
    check("--bench, --check-forces, --compare", r.returncode == 0 and "Poisson solve" in r.stdout and
          "force error at the end" in r.stdout and "Floyd-Steinberg" in r.stdout and png_size(P("fs.png")) == (w, h),
          r.stdout + r.stderr)

    # A step that throws every dot across the image piles them up: the device
    # takes the crowded near-field cells (it refused more than 128 a cell) and
    # ends where the host does.
    for engine in ("host", "device"):
        r = run([P("grey.png"), P("out.png"), "--tau", "1e10", "--iterations", "3", "--points", P(engine + ".txt")]
                + (["--host"] if engine == "host" else []))
        check(f"--tau 1e10 on the {engine}: runs", r.returncode == 0, r.stderr)
    if all(os.path.exists(P(e + ".txt")) for e in ("host", "device")):
        pts = {e: [tuple(map(float, line.split())) for line in open(P(e + ".txt"))] for e in ("host", "device")}
        worst = max((abs(a - b) for p, q in zip(pts["host"], pts["device"]) for a, b in zip(p, q)), default=1.0)
        check("--tau 1e10: device dots are the host's", len(pts["host"]) == len(pts["device"]) == round(ink) and
              worst <= 1e-6, f"{len(pts['host'])} and {len(pts['device'])} dots, largest difference {worst}")

    # The documented result of an all-white image: white output, no dots.
    r = run([P("white.png"), P("out.png"), "--points", P("pts.txt")])
    check("all white: exit 0, no dots", r.returncode == 0 and "0 dots" in r.stdout and
          os.path.getsize(P("pts.txt")) == 0 and png_size(P("out.png")) == (w, h), r.stdout + r.stderr)

    # The points file's convention (--help): pixel (row i, column j) centred
    # at x = j, y = i. One dot on one black pixel settles on that centre.
    one = [[255] * w for _ in range(h)]
    one[7][23] = 0
    write_png(P("one.png"), w, h, one, False)
    r = run([P("one.png"), P("out.png"), "--host", "--dots", "1", "--iterations", "40", "--points", P("pts.txt")])
    pts = [tuple(map(float, line.split())) for line in open(P("pts.txt"))] if r.returncode == 0 else []
    check("points: pixel (row 7, column 23) is at x = 23, y = 7",
          len(pts) == 1 and abs(pts[0][0] - 23) <= 0.25 and abs(pts[0][1] - 7) <= 0.25, str(pts) + r.stderr)

    with open(P("garbage.png"), "wb") as f:
        f.write(b"not a png at all")
    bad = [
        ("unreadable image", [P("garbage.png"), P("o.png")], "cannot read PNG"),
        ("missing image", [P("nope.png"), P("o.png")], "nope.png"),
        ("zero dots", [P("grey.png"), P("o.png"), "--dots", "0"], "--dots"),
        ("more dots than pixels", [P("grey.png"), P("o.png"), "--dots", str(w * h + 1), "--host"], "more dots"),
        ("dots on an all-white image", [P("white.png"), P("o.png"), "--dots", "5", "--host"], "all white"),
        ("unwritable output", [P("grey.png"), os.path.join(tmp, "no", "such", "dir.png"), "--host",
                               "--iterations", "1"], "dir.png"),
        ("missing output", [P("grey.png")], "OUTPUT"),
        ("unknown option", [P("grey.png"), P("o.png"), "--nope"], "--nope"),
        ("bad tau", [P("grey.png"), P("o.png"), "--tau", "-1"], "--tau"),
        # mesh sizes derived from the options: none without an interior node,
        # none without bound (the mesh must resolve the Gaussians, and no finer)
        ("step longer than the mesh", [P("grey.png"), P("o.png"), "--step", "100"], "step = 100"),
        ("step far below sigma", [P("grey.png"), P("o.png"), "--step", "0.01"], "step = 0.01"),
        ("sigma 0", [P("grey.png"), P("o.png"), "--sigma", "0"], "sigma = 0"),
        ("sigma wider than the bound", [P("grey.png"), P("o.png"), "--sigma", "1000", "--step", "500"],
         "sigma = 1000"),
    ]
    for name, args, needle in bad:
        r = run(args)
        check(f"bad input: {name}", r.returncode == 2 and needle in r.stderr,
              f"rc={r.returncode} stderr={r.stderr.strip()[:300]!r}")
finish()
