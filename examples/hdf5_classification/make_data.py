#!/usr/bin/env python3
"""A synthetic two-class problem that a linear classifier cannot solve well.

Two interleaved half-moons in the first two features (Gaussian noise of
standard deviation 0.2 blurs them), plus two features of pure noise, as in
Caffe's hdf5_classification notebook (4 features, 2 of them informative).
The four features are standardized with the training set's mean and
standard deviation.  10000 points: 7500 for training, 2500 for testing,
written as HDF5 ("data": N x 4 float32, "label": N float32 of 0/1) with a
list file each for the HDF5Data layer.

Usage: make_data.py OUT_DIR
"""
import os
import sys

import h5py
import numpy as np


def moons(rng, n):
    label = rng.integers(0, 2, n)
    angle = rng.uniform(0, np.pi, n)
    x = np.where(label == 0, np.cos(angle), 1 - np.cos(angle))
    y = np.where(label == 0, np.sin(angle), 0.5 - np.sin(angle))
    informative = np.stack([x, y], axis=1) + rng.normal(0, 0.2, (n, 2))
    noise = rng.normal(0, 1, (n, 2))
    return np.concatenate([informative, noise], axis=1), label


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(2015)
    data, label = moons(rng, 10000)
    train_x, test_x = data[:7500], data[7500:]
    train_y, test_y = label[:7500], label[7500:]
    mean, std = train_x.mean(axis=0), train_x.std(axis=0)
    for name, x, y in (("train", train_x, train_y), ("test", test_x, test_y)):
        path = os.path.join(out, name + ".h5")
        with h5py.File(path, "w") as f:
            f["data"] = ((x - mean) / std).astype(np.float32)
            f["label"] = y.astype(np.float32)
        with open(os.path.join(out, name + ".txt"), "w") as f:
            f.write(path + "\n")
    print("Wrote %d training and %d test points to %s"
          % (len(train_y), len(test_y), out))


if __name__ == "__main__":
    main()
