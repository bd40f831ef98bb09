#!/usr/bin/env python3
"""Draw a folder of small PNG images of three shapes for the ImageData
example, and the list files the ImageData layer reads.

Classes: 0 circle, 1 square, 2 triangle.  Each 48x48 RGB image holds one
filled shape of random size (all three shapes of a given size have the same
area, so size says nothing about the class), position, rotation and colour
on a background of another random colour, plus pixel noise.  Shapes are
drawn at 4x resolution and averaged down, for smooth edges.  The PNG files
are written here with zlib (no imaging library needed).

Writes OUT_DIR/images/{train,test}/<class>_<n>.png and the list files
OUT_DIR/train.txt and OUT_DIR/test.txt with lines "train/circle_0007.png 0"
(paths relative to OUT_DIR/images/, the layer's root_folder).

Usage: make_shapes.py OUT_DIR [TRAIN_PER_CLASS (1000)] [TEST_PER_CLASS (200)]
"""
import os
import struct
import sys
import zlib

import numpy as np

CLASSES = ("circle", "square", "triangle")
SIZE = 48
SUPER = 4


def write_png(path, rgb):
    """Writes an H x W x 3 uint8 array as an 8-bit RGB PNG."""
    h, w, _ = rgb.shape

    def chunk(kind, payload):
        body = kind + payload
        return (struct.pack(">I", len(payload)) + body
                + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF))

    # Each scanline starts with filter type 0 (none).
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))
    png = (b"\x89PNG\r\n\x1a\n"
           + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 6))
           + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(png)


def shape_mask(kind, rng):
    """Fraction of each pixel covered by the shape (SIZE x SIZE floats)."""
    n = SIZE * SUPER
    r = rng.uniform(8, 14) * SUPER            # radius of the equal-area circle
    cx, cy = rng.uniform(r + 2 * SUPER, n - r - 2 * SUPER, 2)
    theta = rng.uniform(0, 2 * np.pi)
    y, x = np.mgrid[0:n, 0:n] + 0.5
    dx, dy = x - cx, y - cy
    # Coordinates in the shape's rotated frame.
    u = np.cos(theta) * dx + np.sin(theta) * dy
    v = -np.sin(theta) * dx + np.cos(theta) * dy
    if kind == "circle":
        inside = u * u + v * v < r * r
    elif kind == "square":
        half = r * np.sqrt(np.pi) / 2        # 4 half^2 = pi r^2
        inside = (np.abs(u) < half) & (np.abs(v) < half)
    else:
        side = r * np.sqrt(4 * np.pi / np.sqrt(3))
        inradius = side / (2 * np.sqrt(3))
        inside = np.ones_like(u, bool)
        for k in range(3):                    # three half-planes
            a = np.pi / 2 + k * 2 * np.pi / 3
            inside &= np.cos(a) * u + np.sin(a) * v < inradius
    return inside.reshape(SIZE, SUPER, SIZE, SUPER).mean(axis=(1, 3))


def random_colours(rng):
    while True:
        bg, fg = rng.uniform(0, 255, (2, 3))
        if abs(bg.mean() - fg.mean()) > 60:   # visible in gray too
            return bg, fg


def draw(kind, rng):
    mask = shape_mask(kind, rng)[:, :, None]
    bg, fg = random_colours(rng)
    img = bg * (1 - mask) + fg * mask + rng.normal(0, 8, (SIZE, SIZE, 3))
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def main():
    out = sys.argv[1]
    per_class = {"train": int(sys.argv[2]) if len(sys.argv) > 2 else 1000,
                 "test": int(sys.argv[3]) if len(sys.argv) > 3 else 200}
    rng = np.random.default_rng(7)
    for split, count in per_class.items():
        folder = os.path.join(out, "images", split)
        os.makedirs(folder, exist_ok=True)
        lines = []
        for label, kind in enumerate(CLASSES):
            for i in range(count):
                name = "%s/%s_%04d.png" % (split, kind, i)
                write_png(os.path.join(out, "images", name), draw(kind, rng))
                lines.append("%s %d\n" % (name, label))
        # Listed class by class; the training layer shuffles them.
        with open(os.path.join(out, split + ".txt"), "w") as f:
            f.writelines(lines)
    print("Wrote %d training and %d test images to %s/images"
          % (3 * per_class["train"], 3 * per_class["test"], out))


if __name__ == "__main__":
    main()
