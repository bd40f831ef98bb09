#!/usr/bin/env python3
"""Sine-wave sequences for the LSTM example, in the layout Caffe's
recurrent layers read: time-major rows, one column per stream.

Each stream is a chain of sequences of SEQ_LEN steps.  Every sequence is a
sine wave x_t = a sin(w t + p) with its own random frequency
w in [0.2, 0.8] rad/step (a period of 8 to 31 steps), amplitude
a in [0.5, 1] and phase p, so the net has to work out from the values it
has seen so far where the wave is going.  Datasets of each file:
  data    L x N x 1   x_t
  cont    L x N       0 at the first step of a sequence, else 1
  target  L x N x 1   x_{t+1}, the value to predict
The HDF5Data layer hands out T consecutive rows per batch (T x N), and the
LSTM carries its state from one batch to the next; cont = 0 cuts it where
a new wave starts.

It also writes baselines.txt: the mean squared error over the test file of
two trivial predictors, "the next value equals the current one" and "the
next value is 0", and of the mean over steps that the EuclideanLoss
layer reports (sum of squared errors / (2 T)) for each, so they compare
directly with the test loss in the training log.

Usage: make_sine_data.py OUT_DIR
"""
import os
import sys

import h5py
import numpy as np

SEQ_LEN = 100   # steps per wave
STREAMS = 16    # N, independent sequences side by side in a batch


def make(rng, waves_per_stream):
    rows = SEQ_LEN * waves_per_stream
    x = np.empty((rows + 1, STREAMS))  # one extra step for the last target
    target = np.empty((rows, STREAMS))
    cont = np.ones((rows, STREAMS), np.float32)
    t = np.arange(SEQ_LEN + 1)
    for n in range(STREAMS):
        for k in range(waves_per_stream):
            w = rng.uniform(0.2, 0.8)
            a = rng.uniform(0.5, 1.0)
            p = rng.uniform(0, 2 * np.pi)
            wave = a * np.sin(w * t + p)
            s = k * SEQ_LEN
            x[s:s + SEQ_LEN, n] = wave[:-1]
            target[s:s + SEQ_LEN, n] = wave[1:]
            cont[s, n] = 0
    data = x[:rows].astype(np.float32)[:, :, None]
    return data, cont, target.astype(np.float32)[:, :, None]


def write(path, data, cont, target):
    with h5py.File(path, "w") as f:
        f["data"] = data
        f["cont"] = cont
        f["target"] = target


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(1234)
    train = make(rng, 200)   # 20000 rows x 16 streams = 3200 waves
    test = make(rng, 4)      #   400 rows x 16 streams =   64 waves
    for name, arrays in (("train", train), ("test", test)):
        path = os.path.join(out, name + ".h5")
        write(path, *arrays)
        with open(os.path.join(out, name + "_h5.txt"), "w") as f:
            f.write(path + "\n")
    data, _, target = test
    with open(os.path.join(out, "baselines.txt"), "w") as f:
        for name, pred in (("previous", data), ("zero", np.zeros_like(data))):
            mse = float(np.mean((pred - target) ** 2))
            # EuclideanLoss: sum over a T x N batch / (2 T) = N / 2 * MSE.
            f.write("%s %.6f %.6f\n" % (name, mse, mse * STREAMS / 2))
    print("Wrote %d training and %d test rows of %d streams to %s"
          % (train[0].shape[0], test[0].shape[0], STREAMS, out))


if __name__ == "__main__":
    main()
