#!/usr/bin/python3
"""Data-parallel benchmark: LeanCaffe over MPI against PyTorch DDP over gloo.

For each net (LeNet b64, CIFAR-10 quick b100, ResNet-50 b8 per rank), on
random inputs (DummyData: the measurement is of compute and communication,
not of reading data), it measures training images/s in these
configurations, interleaved, RUNS times each:

    caffe 1x1      caffe train, 1 process, 1 thread
    caffe 2x1      mpirun -np 2 caffe train, 1 thread per rank,
                   gradient sums overlapped with backward (layer_wise_reduce)
    caffe 2x1 seq  the same with layer_wise_reduce: false
    caffe 1x2      caffe train, 1 process, 2 threads
    torch 1x1 / torch 2x1 (DistributedDataParallel, gloo) / torch 1x2

and reports min and median images/s, the exposed communication time per
iteration LeanCaffe logs ("Gradient sum across 2 ranks: X ms per iteration
not hidden by backward"), and the 2-rank scaling efficiency
(2x1 images/s) / (2 x 1x1 images/s).  Then a ring-allreduce cost model,
fed with the measured per-layer backward times (`caffe time`, 1 thread),
estimates how much of the communication overlap hides at 8, 64 and 256
ranks (bench/distributed/README.md states its assumptions).

    /usr/bin/python3 bench/distributed/dist_bench.py [--runs 3] [--out F]

Run it on an otherwise idle machine, after building (build/tools/caffe).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'python'))
from caffe.proto import caffe_pb2  # noqa: E402
from google.protobuf import text_format  # noqa: E402

CAFFE = os.path.join(ROOT, 'build', 'tools', 'caffe')
TORCH = os.path.join(ROOT, 'bench', 'distributed', 'torch_ddp.py')
# net: (batch per rank, timed iterations)
NETS = {'lenet': (64, 60), 'cifar10_quick': (100, 20), 'resnet50': (8, 4)}
CLASSES = {'lenet': 10, 'cifar10_quick': 10, 'resnet50': 1000}
BUCKET_BYTES = 25 * 1024 * 1024


def train_net(name, batch):
    """models/<name>/deploy.prototxt with random inputs and a loss."""
    net = caffe_pb2.NetParameter()
    with open(os.path.join(ROOT, 'models', name, 'deploy.prototxt')) as f:
        text_format.Merge(f.read(), net)
    out = caffe_pb2.NetParameter()
    out.name = net.name
    for layer in net.layer:
        if layer.type == 'Input':
            shape = list(layer.input_param.shape[0].dim)
            shape[0] = batch
            data = out.layer.add()
            data.name, data.type = 'data', 'DummyData'
            data.top.extend([layer.top[0], 'label'])
            p = data.dummy_data_param
            p.shape.add().dim.extend(shape)
            p.shape.add().dim.extend([batch])
            p.data_filler.add().type = 'gaussian'
            label = p.data_filler.add()
            label.type, label.value = 'constant', 1
        elif layer.type == 'Softmax':
            loss = out.layer.add()
            loss.name, loss.type = 'loss', 'SoftmaxWithLoss'
            loss.bottom.extend([layer.bottom[0], 'label'])
            loss.top.append('loss')
        else:
            out.layer.add().CopyFrom(layer)
    return text_format.MessageToString(out)


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)
    return path


def environment(threads):
    env = dict(os.environ)
    for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
        env[k] = str(threads)
    env.update({'OMPI_ALLOW_RUN_AS_ROOT': '1',
                'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1', 'GLOG_minloglevel': '0'})
    return env


def run(cmd, threads, cwd):
    proc = subprocess.run(cmd, cwd=cwd, env=environment(threads),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError('%s failed:\n%s' % (' '.join(cmd), proc.stdout))
    return proc.stdout


def caffe_run(work, name, ranks, threads, overlap):
    batch, iters = NETS[name]
    solver = write(os.path.join(work, '%s_%d_%d.solver' % (name, ranks,
                                                           overlap)),
                   'net: "%s.prototxt"\nbase_lr: 0.0001 momentum: 0.9\n'
                   'lr_policy: "fixed" max_iter: %d display: %d\n'
                   'random_seed: 1 snapshot_after_train: false\n'
                   'layer_wise_reduce: %s\n'
                   % (name, iters + 1, iters, 'true' if overlap else 'false'))
    cmd = [CAFFE, 'train', '--solver=' + solver]
    if ranks > 1:
        cmd = ['mpirun', '--bind-to', 'none', '-np', str(ranks)] + cmd
    log = run(cmd, threads, work)
    # The display at iteration `iters` times iterations 1..iters.
    rate = re.findall(r'Iteration %d \(([0-9.e+]+) iter/s' % iters, log)
    exposed = re.findall(r'Gradient sum across \d+ ranks: ([0-9.e+-]+) ms',
                         log)
    return (float(rate[-1]) * batch * ranks,
            float(exposed[-1]) if exposed else None)


def torch_run(name, ranks, threads):
    batch, iters = NETS[name]
    log = run(['/usr/bin/python3', TORCH, '--net', name, '--batch',
               str(batch), '--ranks', str(ranks), '--threads', str(threads),
               '--iters', str(iters)], threads, ROOT)
    return float(re.findall(r'images_per_s=([0-9.]+)', log)[-1]), None


CONFIGS = [
    ('caffe 1x1', lambda w, n: caffe_run(w, n, 1, 1, True)),
    ('caffe 2x1', lambda w, n: caffe_run(w, n, 2, 1, True)),
    ('caffe 2x1 seq', lambda w, n: caffe_run(w, n, 2, 1, False)),
    ('caffe 1x2', lambda w, n: caffe_run(w, n, 1, 2, True)),
    ('torch 1x1', lambda w, n: torch_run(n, 1, 1)),
    ('torch 2x1', lambda w, n: torch_run(n, 2, 1)),
    ('torch 1x2', lambda w, n: torch_run(n, 1, 2)),
]


def layer_backward_ms(work, name):
    """Per-layer backward ms and forward+backward ms, 1 thread."""
    log = run([CAFFE, 'time', '--model=%s.prototxt' % name,
               '--iterations=3'], 1, work)
    backward = {m.group(1): float(m.group(2)) for m in re.finditer(
        r'\]\s+(\S+)\s+backward: ([0-9.e+-]+) ms', log)}
    total = float(re.findall(r'Average Forward-Backward: ([0-9.]+) ms',
                             log)[-1])
    return backward, total


def gradient_buckets(work, name):
    """(ready layer index, bytes) per bucket, as DataParallel plans them:
    learnable blobs last first, 25 MiB buckets, ready at the lowest
    layer of the bucket."""
    import caffe
    net = caffe.Net(os.path.join(work, name + '.prototxt'), caffe.TRAIN)
    order = list(net._layer_names)
    blobs = []  # (layer index, bytes), in net order
    for layer_name, params in net.params.items():
        for p in params:
            blobs.append((order.index(layer_name), p.data.size * 4))
    buckets = []
    for layer, size in reversed(blobs):
        if buckets and buckets[-1][1] + size <= BUCKET_BYTES:
            buckets[-1] = (min(buckets[-1][0], layer), buckets[-1][1] + size)
        else:
            buckets.append((layer, size))
    return order, buckets


def ring_model(order, backward, total_ms, buckets, ranks, alpha_us, gbps):
    """Exposed ms per iteration with overlap, and without."""
    times = [backward.get(n, 0.0) for n in order]
    done_at = {}  # layer index -> ms since backward began
    t = 0.0
    for i in reversed(range(len(order))):
        t += times[i]
        done_at[i] = t
    backward_total = t
    end = 0.0
    comm_total = 0.0
    for layer, size in buckets:
        cost = (2 * (ranks - 1) * alpha_us / 1000.0 +
                2.0 * (ranks - 1) / ranks * size / (gbps * 1e9) * 1000.0)
        comm_total += cost
        end = max(end, done_at[layer]) + cost
    return max(0.0, end - backward_total), comm_total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--nets', default='lenet cifar10_quick resnet50')
    ap.add_argument('--out', default=os.path.join(
        ROOT, 'docs', 'distributed_benchmarks.md'))
    args = ap.parse_args()
    nets = args.nets.split()
    work = tempfile.mkdtemp(prefix='leancaffe_dist_bench_')
    for name in nets:
        write(os.path.join(work, name + '.prototxt'),
              train_net(name, NETS[name][0]))
    results = {}
    for r in range(args.runs):
        for name in nets:
            for label, fn in CONFIGS:
                rate, exposed = fn(work, name)
                results.setdefault((name, label), []).append((rate, exposed))
                print('run %d %-14s %-16s %10.2f img/s%s' % (
                    r, name, label, rate,
                    '' if exposed is None else '  exposed %.2f ms' % exposed),
                    flush=True)
    lines = ['| net (batch/rank) | configuration | images/s min | images/s '
             'median | exposed comm ms/iter (median) |',
             '|---|---|---:|---:|---:|']
    for name in nets:
        for label, _ in CONFIGS:
            got = results[(name, label)]
            rates = [g[0] for g in got]
            exposed = [g[1] for g in got if g[1] is not None]
            lines.append('| %s (%d) | %s | %.1f | %.1f | %s |' % (
                name, NETS[name][0], label, min(rates),
                statistics.median(rates),
                '%.2f' % statistics.median(exposed) if exposed else ''))
    lines += ['', '| net | LeanCaffe 2-rank efficiency (median) | '
              'PyTorch DDP 2-rank efficiency (median) |', '|---|---:|---:|']
    for name in nets:
        med = {label: statistics.median(g[0] for g in results[(name, label)])
               for label, _ in CONFIGS}
        lines.append('| %s | %.3f | %.3f |' % (
            name, med['caffe 2x1'] / (2 * med['caffe 1x1']),
            med['torch 2x1'] / (2 * med['torch 1x1'])))
    lines += ['', 'Cost model (ring allreduce, 25 MiB buckets, per-rank '
              'batch fixed, measured 1-thread backward):', '',
              '| net | fwd+bwd ms | gradient MiB | network | ranks | comm ms '
              '| exposed ms, overlap | efficiency, overlap | efficiency, '
              'no overlap |', '|---|---:|---:|---|---:|---:|---:|---:|---:|']
    networks = [('25 GbE (20 us, 3.1 GB/s)', 20.0, 3.1),
                ('100 Gb IB (2 us, 12 GB/s)', 2.0, 12.0)]
    for name in nets:
        backward, total = layer_backward_ms(work, name)
        order, buckets = gradient_buckets(work, name)
        mib = sum(b[1] for b in buckets) / 1048576.0
        for label, alpha, gbps in networks:
            for ranks in (8, 64, 256):
                exposed, comm = ring_model(order, backward, total, buckets,
                                           ranks, alpha, gbps)
                lines.append('| %s | %.1f | %.1f | %s | %d | %.2f | %.2f | '
                             '%.3f | %.3f |' % (
                                 name, total, mib, label, ranks, comm,
                                 exposed, total / (total + exposed),
                                 total / (total + comm)))
    table = '\n'.join(lines) + '\n'
    print(table)
    with open(args.out, 'w') as f:
        f.write('# Data-parallel benchmark (generated by '
                'bench/distributed/dist_bench.py)\n\n')
        f.write('Machine: %s; %d runs per configuration, interleaved.\n\n'
                % (os.uname().nodename + ', ' + str(os.cpu_count()) +
                   ' cores', args.runs))
        f.write(table)
    print('written to', args.out)


if __name__ == '__main__':
    main()
