"""bench/layer_shares.py --by-direction sums a `caffe time` log by layer
type and direction (forward, backward, and the reruns of recomputation);
scripts/gpu_check.sh prints it after each GPU profile, and docs/gpu.md
quotes those sums.  The tool's own log of a CPU run stands in for the
GPU one here (the same lines, from the same code).  Times are not
asserted, only that every layer's time lands under its type once."""
import os
import re
import subprocess
import sys

from pycaffe_testutil import run_tool

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
MAKE_NETS = os.path.join(ROOT, 'bench', 'gpu', 'make_nets.py')
SHARES = os.path.join(ROOT, 'bench', 'layer_shares.py')
LAYER_LINE = re.compile(
    r'\]\s+(\S+)\t(forward|backward|recompute): ([0-9.eE+-]+) ms')
SUM_LINE = re.compile(
    r'^(\S+)\s+(forward|backward|recompute)\s+([0-9.]+) ms$')


def by_type(log, proto):
    return subprocess.run([sys.executable, SHARES, proto, log,
                           '--by-direction'],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)


def profile(tmp_path, spec):
    """`caffe time` of bench/gpu/make_nets.py's net SPEC on the CPU:
    (prototxt, log file, log text)."""
    proto = subprocess.run(
        [sys.executable, MAKE_NETS, str(tmp_path), spec],
        stdout=subprocess.PIPE, universal_newlines=True, check=True,
        timeout=60).stdout.strip()
    rc, out = run_tool(['time', '--model=' + proto, '--iterations=1'],
                       tmp_path)
    assert rc == 0, out
    log = os.path.join(str(tmp_path), 'time.log')
    with open(log, 'w') as f:
        f.write(out)
    return proto, log, out


def test_profile_sums_every_layer_of_resnet50_under_its_type(tmp_path):
    proto, log, out = profile(tmp_path, 'resnet50:1:mem')
    p = by_type(log, proto)
    assert p.returncode == 0, p.stdout + p.stderr
    sums = {}
    for line in p.stdout.splitlines():
        m = SUM_LINE.match(line)
        if m:
            sums[(m.group(1), m.group(2))] = float(m.group(3))
    # The types present, the net's own and the inserted Splits.
    for key in [('Convolution', 'forward'), ('Convolution', 'backward'),
                ('BatchNorm', 'forward'), ('Eltwise', 'forward'),
                ('Split', 'backward'), ('InnerProduct', 'forward')]:
        assert key in sums, p.stdout
    # Every per-layer line of the log counted once: the totals agree
    # (each printed figure rounds to 0.01 ms).
    logged = [float(m.group(3)) for m in map(LAYER_LINE.search,
                                             out.splitlines()) if m]
    assert len(logged) > 2 * 150, out  # ResNet-50 has 286 layers
    total = float(re.search(r'sum of the layers\s+([0-9.]+) ms',
                            p.stdout).group(1))
    assert abs(total - sum(logged)) < 0.01, (total, sum(logged))
    assert abs(sum(sums.values()) - sum(logged)) < 0.005 * len(sums) + 0.01
    assert 'Average Forward-Backward' in p.stdout

    # A layer the net lacks is an error naming it, not a silent sum.
    with open(log, 'a') as f:
        f.write('I0101 00:00:00.0 1 caffe.cpp:401] no_such_layer\t'
                'forward: 1.5 ms.\n')
    p = by_type(log, proto)
    assert p.returncode == 1
    assert 'no_such_layer' in p.stderr


def test_profile_counts_the_reruns_of_recomputation(tmp_path):
    proto, log, out = profile(tmp_path, 'resnet50:1:cheap')
    reruns = [float(m.group(1)) for m in
              re.finditer(r'\trecompute: ([0-9.eE+-]+) ms', out)]
    assert reruns, out  # CHEAP reruns BatchNorm, pooling, Eltwise
    p = by_type(log, proto)
    assert p.returncode == 0, p.stdout + p.stderr
    rerun_sum = sum(float(m.group(3)) for m in map(SUM_LINE.match,
                                                   p.stdout.splitlines())
                    if m and m.group(2) == 'recompute')
    assert abs(rerun_sum - sum(reruns)) < 0.01 * len(reruns) + 0.01, p.stdout


def test_profile_without_per_layer_lines_is_an_error(tmp_path):
    log = os.path.join(str(tmp_path), 'empty.log')
    proto = os.path.join(str(tmp_path), 'net.prototxt')
    with open(log, 'w') as f:
        f.write('F0101 no GPU\n')
    with open(proto, 'w') as f:
        f.write('layer { name: "a" type: "ReLU" }\n')
    p = by_type(log, proto)
    assert p.returncode == 1
    assert 'no per-layer times' in p.stderr
