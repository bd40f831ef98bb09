"""bench/gpu/make_nets.py writes the nets the GPU benchmark times and
whose largest batch it searches.  They run only on a GPU machine, where
a net that fails to build wastes a short lease, so each variant is built
here and its plan compared with the others: the recomputing variants
must plan less than sharing alone, nested SQRT (sqrt2) less than SQRT
and CHEAP with cheap_multiply_adds (cheap128) less than CHEAP, or the largest-batch search would measure nothing new."""
import os
import subprocess
import sys

import caffe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
MAKE_NETS = os.path.join(ROOT, 'bench', 'gpu', 'make_nets.py')
VARIANTS = ['plain', 'mem', 'sqrt', 'sqrt2', 'cheap', 'cheap128', 'wide',
            'memwide']


def make_net(tmp_path, spec):
    return subprocess.run(
        [sys.executable, MAKE_NETS, str(tmp_path), spec],
        stdout=subprocess.PIPE, universal_newlines=True, check=True,
        timeout=60).stdout.strip()


def planned_bytes(proto):
    """The plan's bytes, from building the net (nothing runs); None
    for a net without mem_param's plan."""
    net = caffe.Net(proto, caffe.TRAIN)
    report = net.memory_report()
    del net
    return None if report is None else int(report['planned_bytes'])


def test_every_variant_builds_and_the_recomputing_ones_plan_less(tmp_path):
    planned = {v: planned_bytes(make_net(tmp_path, 'resnet50:2:' + v))
               for v in VARIANTS}
    # Sharing's plan exists where mem_param optimizes training.
    assert planned['plain'] is None and planned['wide'] is None, planned
    for v in ['mem', 'sqrt', 'sqrt2', 'cheap', 'cheap128', 'memwide']:
        assert planned[v] is not None and planned[v] > 0, planned
    assert planned['sqrt'] < planned['mem'], planned
    assert planned['cheap'] < planned['mem'], planned
    assert planned['sqrt2'] < planned['sqrt'], planned
    assert planned['cheap128'] < planned['cheap'], planned


def test_an_unknown_variant_is_refused_by_name(tmp_path):
    p = subprocess.run(
        [sys.executable, MAKE_NETS, str(tmp_path), 'resnet50:2:sqrt3'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=60)
    assert p.returncode != 0
    assert 'sqrt3' in p.stderr
