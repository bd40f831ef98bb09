#!/usr/bin/env python3
"""Make Fashion-MNIST image pairs for the siamese example.

Each item is one pair of 28x28 gray images stacked as 2 channels
(dataset "pair_data", N x 2 x 28 x 28, uint8 0..255) with a similarity
label (dataset "sim", N, float32: 1 = same class, 0 = different class).
Half of the pairs are same-class pairs, so a classifier that always says
"different" (or "same") would be right exactly half of the time.

Three disjoint image pools give three pair sets:
  train: 55000 of the 60000 training images -> 60000 pairs in 4 files
  val:   the other 5000 training images     ->  5000 pairs (threshold choice)
  test:  the 10000 test images              -> 10000 pairs
HDF5Data converts the uint8 pixels to float on loading; the net scales them
by 1/256 with a Power layer.  Files are gzip-compressed.

Usage: create_pairs.py DATA_DIR OUT_DIR   (DATA_DIR holds the idx[.gz] files)
"""
import gzip
import os
import sys

import h5py
import numpy as np


def read_idx(data_dir, base):
    for name in (base, base + ".gz"):
        path = os.path.join(data_dir, name)
        if os.path.exists(path):
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rb") as f:
                raw = f.read()
            ndim = raw[3]
            dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big")
                    for i in range(ndim)]
            return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)
    sys.exit("missing %s[.gz] in %s" % (base, data_dir))


def make_pairs(images, labels, count, rng):
    """count pairs, half same-class, half different-class, in random order."""
    by_class = [np.flatnonzero(labels == c) for c in range(10)]
    first = rng.integers(0, len(images), count)
    same = np.zeros(count, np.float32)
    same[: count // 2] = 1
    rng.shuffle(same)
    second = np.empty(count, np.int64)
    for i in range(count):
        c = labels[first[i]]
        if same[i]:
            pool = by_class[c]
            j = first[i]
            while j == first[i]:           # a different image of the class
                j = pool[rng.integers(len(pool))]
        else:
            other = rng.integers(9)
            other += other >= c             # any class but c
            pool = by_class[other]
            j = pool[rng.integers(len(pool))]
        second[i] = j
    pairs = np.stack([images[first], images[second]], axis=1)  # N x 2 x 28 x 28
    return pairs, same


def write(path, pairs, sim):
    with h5py.File(path, "w") as f:
        f.create_dataset("pair_data", data=pairs, compression="gzip",
                         compression_opts=4, chunks=(256, 2, 28, 28))
        f.create_dataset("sim", data=sim)


def main():
    data_dir, out_dir = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(1701)
    train_x = read_idx(data_dir, "train-images-idx3-ubyte")
    train_y = read_idx(data_dir, "train-labels-idx1-ubyte")
    test_x = read_idx(data_dir, "t10k-images-idx3-ubyte")
    test_y = read_idx(data_dir, "t10k-labels-idx1-ubyte")

    order = rng.permutation(len(train_x))
    pool, held = order[:55000], order[55000:]

    train_list = []
    for k in range(4):
        pairs, sim = make_pairs(train_x[pool], train_y[pool], 15000, rng)
        path = os.path.join(out_dir, "train_pairs_%d.h5" % k)
        write(path, pairs, sim)
        train_list.append(path)
    with open(os.path.join(out_dir, "train_pairs.txt"), "w") as f:
        f.write("\n".join(train_list) + "\n")

    for name, x, y, n in (("val", train_x[held], train_y[held], 5000),
                          ("test", test_x, test_y, 10000)):
        pairs, sim = make_pairs(x, y, n, rng)
        path = os.path.join(out_dir, "%s_pairs.h5" % name)
        write(path, pairs, sim)
        with open(os.path.join(out_dir, "%s_pairs.txt" % name), "w") as f:
            f.write(path + "\n")
    print("Wrote 60000 train, 5000 val and 10000 test pairs to %s" % out_dir)


if __name__ == "__main__":
    main()
