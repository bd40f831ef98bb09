"""What reading an inner blob costs under mem_param: asking for it in the
pass (forward(blobs=...): memory of its own outside the plan) against
keeping it (net.keep: pinned in a new plan).  For each net and blob:
planned bytes (arena + pinned) and bytes outside the plan, the time of
net.keep (one re-plan), and forward time without and with the request
(min and median of --repeat runs, interleaved).

Usage: PYTHONPATH=python /usr/bin/python3 bench/memory/asking_for_blobs.py
"""
import argparse
import os
import statistics
import time

import numpy as np

import caffe
from caffe.proto import caffe_pb2
from google.protobuf import text_format

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CASES = [('resnet50', ['res3d', 'res4f', 'pool5']),
         ('vgg16', ['conv4_3', 'fc7'])]
MIB = 1024.0 * 1024.0


def deploy(model, batch):
    param = caffe_pb2.NetParameter()
    with open(os.path.join(REPO, 'models', model, 'deploy.prototxt')) as f:
        text_format.Merge(f.read(), param)
    for layer in param.layer:
        if layer.type == 'Input':
            layer.input_param.shape[0].dim[0] = batch
    param.ClearField('mem_param')
    text_format.Merge('mem_param { optimize_test: true }', param)
    return param


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    caffe.init_log(2)
    print('| net | blob | blob MiB | plan MiB | keep: plan MiB | keep: '
          're-plan ms | ask: plan + own MiB | forward ms min/median | '
          'forward asking ms min/median |')
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for model, blobs in CASES:
        param = deploy(model, args.batch)
        for blob in blobs:
            plain = caffe.Net(param, caffe.TEST)
            base = plain.memory_report()['planned_bytes']
            blob_bytes = 4 * int(np.prod(plain.blobs[blob].shape))
            kept = caffe.Net(param, caffe.TEST)
            keep_ms = timed(lambda: kept.keep([blob]))
            keep_bytes = kept.memory_report()['planned_bytes']
            asking = caffe.Net(param, caffe.TEST)
            asking.forward(blobs=[blob])
            report = asking.memory_report()
            ask_bytes = report['planned_bytes'] + report['detached_bytes']
            plain_ms, ask_ms = [], []
            for _ in range(args.repeat):  # interleaved
                plain_ms.append(timed(lambda: plain.forward()))
                ask_ms.append(timed(lambda: asking.forward(blobs=[blob])))
            print('| %s b%d | %s | %.2f | %.2f | %.2f | %.1f | %.2f | '
                  '%.0f / %.0f | %.0f / %.0f |' % (
                      model, args.batch, blob, blob_bytes / MIB, base / MIB,
                      keep_bytes / MIB, keep_ms, ask_bytes / MIB,
                      min(plain_ms), statistics.median(plain_ms),
                      min(ask_ms), statistics.median(ask_ms)))


if __name__ == '__main__':
    main()
