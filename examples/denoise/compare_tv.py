#!/usr/bin/env python3
"""Quality of an L1MC result against scikit-image's total-variation denoising.

  compare_tv.py CLEAN.png NOISY.png L1MC.png [--figure OUT.png]
      PSNR and SSIM of the noisy input and of the L1MC result (pscr-denoise's
      output) against the clean image, and of scikit-image's TV denoising
      (Chambolle) of the same noisy input at its best weight by PSNR
      (weights 0.005, 0.010, ..., 0.200); with --figure, the four images
      side by side (clean, noisy, L1MC, TV); with --profiles OUT.png, rows
      n/8 (the synthetic scene's ramp) and n/2 (across its square) of the
      clean, L1MC and TV images (grey images only).
  compare_tv.py --synthetic N OUT.png
      writes the synthetic N x N scene of pscr-denoise-bench (a ramp, a
      raised square, a rippled disc) as an 8-bit grey PNG.
  compare_tv.py --sample camera|astronaut|coins OUT.png
      writes that scikit-image sample image as a PNG.

Debian 12: python3-skimage and python3-matplotlib (run it with /usr/bin/python3).
The r0 sweep and the commands behind docs/denoise.md's table are listed there.
"""
import argparse
import sys

import numpy as np


def load(path):
    from skimage import io
    img = io.imread(path)
    if img.ndim == 3 and img.shape[2] == 4:
        img = img[:, :, :3]
    if img.ndim == 3 and (img == img[:, :, :1]).all():
        img = img[:, :, 0]  # grey written as RGB (pscr-denoise writes RGB)
    if img.dtype != np.uint8:
        sys.exit(f"compare_tv.py: {path}: expected an 8-bit PNG, got {img.dtype}")
    return img.astype(np.float64) / 255


def scores(clean, img):
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity
    colour = clean.ndim == 3
    psnr = peak_signal_noise_ratio(clean, img, data_range=1)
    ssim = structural_similarity(clean, img, data_range=1, channel_axis=2 if colour else None)
    return psnr, ssim


def best_tv(clean, noisy):
    from skimage.restoration import denoise_tv_chambolle
    colour = clean.ndim == 3
    best = None
    for k in range(1, 41):
        weight = 0.005 * k
        out = denoise_tv_chambolle(noisy, weight=weight, channel_axis=2 if colour else None)
        out = np.round(np.clip(out, 0, 1) * 255) / 255  # as an 8-bit PNG, like the L1MC result
        psnr, ssim = scores(clean, out)
        if best is None or psnr > best[0]:
            best = (psnr, ssim, weight, out)
    return best


def synthetic(n):
    # pscr-denoise-bench's scene(): the same formulas per pixel
    y, x = np.mgrid[0:n, 0:n] / n
    v = 0.2 + 0.3 * x
    v = np.where((x > 0.25) & (x < 0.75) & (y > 0.25) & (y < 0.75), 0.85, v)
    v = np.where((x - 0.3) ** 2 + (y - 0.7) ** 2 < 0.02, 0.5 + 0.4 * np.sin(20 * x), v)
    return np.round(np.clip(v, 0, 1) * 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("images", nargs="*", help="CLEAN.png NOISY.png L1MC.png")
    ap.add_argument("--figure", help="write clean, noisy, L1MC and TV side by side")
    ap.add_argument("--profiles", help="write two rows of clean, L1MC and TV as curves")
    ap.add_argument("--synthetic", type=int, metavar="N", help="write the synthetic N x N scene to the one path given")
    ap.add_argument("--sample", choices=["camera", "astronaut", "coins"], help="write a scikit-image sample image")
    a = ap.parse_args()
    if a.sample is not None:
        if len(a.images) != 1:
            sys.exit("compare_tv.py: --sample NAME takes one output path")
        from skimage import data, io
        io.imsave(a.images[0], getattr(data, a.sample)(), check_contrast=False)
        return
    if a.synthetic is not None:
        if len(a.images) != 1 or a.synthetic < 8:
            sys.exit("compare_tv.py: --synthetic N (N >= 8) takes one output path")
        from skimage import io
        io.imsave(a.images[0], synthetic(a.synthetic), check_contrast=False)
        return
    if len(a.images) != 3:
        sys.exit("compare_tv.py: give CLEAN.png NOISY.png L1MC.png")
    clean, noisy, l1mc = (load(p) for p in a.images)
    if not (clean.shape == noisy.shape == l1mc.shape):
        sys.exit(f"compare_tv.py: the images differ in size: {clean.shape}, {noisy.shape}, {l1mc.shape}")
    rows = [("noisy", *scores(clean, noisy), None), ("L1MC", *scores(clean, l1mc), None)]
    tv = best_tv(clean, noisy)
    rows.append(("TV (Chambolle)", tv[0], tv[1], tv[2]))
    for name, psnr, ssim, weight in rows:
        extra = f"  (best weight {weight:.3f})" if weight is not None else ""
        print(f"{name:16s} PSNR {psnr:6.2f} dB  SSIM {ssim:.3f}{extra}")
    if a.figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 4, figsize=(16, 4.4))
        grey = dict(cmap="gray", vmin=0, vmax=1) if clean.ndim == 2 else {}
        titles = ["clean", f"noisy ({rows[0][1]:.2f} dB)", f"L1MC ({rows[1][1]:.2f} dB)",
                  f"TV, weight {tv[2]:.3f} ({tv[0]:.2f} dB)"]
        for axis, img, title in zip(ax, [clean, noisy, l1mc, tv[3]], titles):
            axis.imshow(img, **grey)
            axis.set_title(title)
            axis.axis("off")
        fig.tight_layout()
        fig.savefig(a.figure, dpi=100)
    if a.profiles:
        if clean.ndim != 2:
            sys.exit("compare_tv.py: --profiles needs a grey image")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        n = clean.shape[0]
        fig, ax = plt.subplots(2, 1, figsize=(10, 6))
        for axis, row in zip(ax, [n // 8, n // 2]):
            for img, label, style in [(clean, "clean", "k-"), (l1mc, "L1MC", "b-"), (tv[3], "TV", "r-")]:
                axis.plot(img[row], style, label=label, lw=1)
            axis.set_title(f"row {row}")
            axis.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(a.profiles, dpi=100)


if __name__ == "__main__":
    main()
