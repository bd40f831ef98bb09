#!/usr/bin/env python3
"""Pair-classification accuracy of the trained siamese net.

Reads the features that `caffe test` wrote with siamese_features.prototxt:
each row of "data" is (feat, feat_p), two 2-D points, and "label" is 1 for
a same-class pair.  A pair is called "same class" when the distance
d = ||feat - feat_p|| is below a threshold.  The threshold is the one that
classifies the validation pairs best (they come from 5000 training images
that training never saw); it is then applied unchanged to the 10000 test
pairs.  Half of all pairs are same-class pairs, so chance is 0.5.

Usage: pair_accuracy.py VAL_FEATURES.h5 TEST_FEATURES.h5
Prints one line: "<test accuracy> <threshold> <val accuracy> <n test>".
"""
import sys

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        feats = np.asarray(f["data"], np.float64).reshape(-1, 4)
        same = np.asarray(f["label"]).reshape(-1) > 0.5
    dist = np.linalg.norm(feats[:, :2] - feats[:, 2:], axis=1)
    return dist, same


def accuracy(dist, same, threshold):
    return float(np.mean((dist < threshold) == same))


def best_threshold(dist, same):
    # Candidates: midpoints between consecutive sorted distances.
    d = np.sort(dist)
    candidates = np.concatenate([[0.0], (d[1:] + d[:-1]) / 2, [d[-1] + 1]])
    order = np.argsort(dist)
    same_sorted = same[order]
    # Accuracy with threshold between d[k-1] and d[k]: the first k pairs are
    # called "same".
    called_same_right = np.concatenate([[0], np.cumsum(same_sorted)])
    called_diff_right = np.concatenate(
        [[0], np.cumsum((~same_sorted)[::-1])])[::-1]
    acc = (called_same_right + called_diff_right) / len(dist)
    k = int(np.argmax(acc))
    return candidates[k], float(acc[k])


def main():
    val_dist, val_same = load(sys.argv[1])
    test_dist, test_same = load(sys.argv[2])
    threshold, val_acc = best_threshold(val_dist, val_same)
    test_acc = accuracy(test_dist, test_same, threshold)
    print("%.4f %.3f %.4f %d" % (test_acc, threshold, val_acc, len(test_dist)))


if __name__ == "__main__":
    main()
