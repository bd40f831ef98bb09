"""The `caffe` tool's flags with BVLC master's meaning: -stage and -level
select layers by NetState in train, test and time; -phase picks the phase
`time` builds; -iterations counts test batches; -weights takes a
comma-separated list applied in order; -snapshot and -weights exclude each
other; -model and -solver name the files."""
import re

import numpy as np
import pytest

import caffe

from pycaffe_testutil import run_tool, write

# `extra` exists only with stage "extra", `deep` only from level 1 on, and
# `train_only` only in the TRAIN phase; each adds an output the tool logs.
STAGED_NET = """
name: "staged"
layer { name: "data" type: "DummyData" top: "data" top: "label"
        dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 2 }
          data_filler { type: "constant" value: 0.5 }
          data_filler { type: "constant" value: 1 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
        inner_product_param { num_output: 2
          weight_filler { type: "constant" value: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
        top: "loss" }
layer { name: "extra" type: "Reduction" bottom: "ip" top: "extra_sum"
        include { stage: "extra" } }
layer { name: "deep" type: "Reduction" bottom: "ip" top: "deep_sum"
        include { min_level: 1 } }
layer { name: "train_only" type: "Reduction" bottom: "ip" top: "train_sum"
        include { phase: TRAIN } }
"""


@pytest.fixture
def staged(tmp_path):
    model = write(tmp_path, 'staged.prototxt', STAGED_NET)
    solver = write(tmp_path, 'solver.prototxt', """
        net: "%s" base_lr: 0 lr_policy: "fixed" max_iter: 2 display: 1
        snapshot_prefix: "%s" random_seed: 7
        """ % (model, tmp_path / 'snap'))
    return model, solver


def outputs_named(out):
    return set(re.findall(r'(?:net output #\d+: |\] )(\w+_sum) = ', out))


def test_stage_and_level_select_layers_in_every_command(tmp_path, staged):
    model, solver = staged
    weights = str(tmp_path / 'snap_iter_2.caffemodel')
    cases = [([], set()), (['--stage=extra'], {'extra_sum'}),
             (['--level=1'], {'deep_sum'}),
             (['--stage=other,extra', '--level=2'], {'extra_sum', 'deep_sum'})]
    for flags, expected in cases:
        code, out = run_tool(['train', '--solver=' + solver] + flags,
                             cwd=tmp_path)
        assert code == 0, out
        assert outputs_named(out) == expected | {'train_sum'}, (flags, out)
        code, out = run_tool(['test', '--model=' + model,
                              '--weights=' + weights] + flags, cwd=tmp_path)
        assert code == 0, out
        assert outputs_named(out) == expected, (flags, out)
        code, out = run_tool(['time', '--model=' + model,
                              '--iterations=1'] + flags, cwd=tmp_path)
        assert code == 0, out
        timed = set(re.findall(r'(\w+)\tforward:', out))
        assert {'extra', 'deep'} & timed == {n[:-4] for n in expected}, out


def test_phase_picks_the_net_time_builds(tmp_path, staged):
    model, _ = staged
    for phase, has_train_only in (('TRAIN', True), ('TEST', False), ('', True)):
        flags = ['--phase=' + phase] if phase else []
        code, out = run_tool(['time', '--model=' + model, '--iterations=1']
                             + flags, cwd=tmp_path)
        assert code == 0, out
        assert ('train_only\tforward:' in out) == has_train_only, phase
    code, out = run_tool(['time', '--model=' + model, '--phase=VAL'],
                         cwd=tmp_path)
    assert code == 1 and 'TRAIN or TEST' in out


def test_iterations_counts_test_batches(tmp_path, staged):
    model, solver = staged
    code, out = run_tool(['train', '--solver=' + solver], cwd=tmp_path)
    assert code == 0, out
    weights = str(tmp_path / 'snap_iter_2.caffemodel')
    for n in (1, 3):
        code, out = run_tool(['test', '--model=' + model,
                              '--weights=' + weights, '--iterations=%d' % n],
                             cwd=tmp_path)
        assert code == 0, out
        batches = re.findall(r'Batch (\d+), loss = ', out)
        assert batches == [str(i) for i in range(n)], out
        assert re.search(r'Loss: [0-9.]+', out), out


def test_weights_list_applies_in_order(tmp_path, staged):
    model, solver = staged
    net = caffe.Net(model, caffe.TRAIN)
    first, second = str(tmp_path / 'a.caffemodel'), str(tmp_path / 'b.caffemodel')
    net.params['ip'][0].data[...] = 1.0
    net.params['ip'][1].data[...] = 2.0
    net.save(first)
    net.params['ip'][0].data[...] = -3.0
    net.save(second)
    # base_lr 0: the snapshot holds what the last file in the list gave.
    code, out = run_tool(['train', '--solver=' + solver,
                          '--weights=%s,%s' % (first, second)], cwd=tmp_path)
    assert code == 0, out
    assert out.index('Finetuning from ' + first) < out.index(
        'Finetuning from ' + second)
    trained = caffe.Net(model, caffe.TEST,
                        weights=str(tmp_path / 'snap_iter_2.caffemodel'))
    assert np.all(trained.params['ip'][0].data == -3.0)
    assert np.all(trained.params['ip'][1].data == 2.0)
    code, out = run_tool(['train', '--solver=' + solver, '--weights=' + first,
                          '--snapshot=snap_iter_2.solverstate'], cwd=tmp_path)
    assert code == 1 and 'not both' in out
    code, out = run_tool(['train', '--solver=' + solver,
                          '--weights=%s,missing.caffemodel' % first],
                         cwd=tmp_path)
    assert code == 1 and 'missing.caffemodel' in out


def test_commands_name_the_file_they_need(tmp_path):
    for command, flag in (('train', '--solver'), ('test', '--model'),
                          ('time', '--model')):
        code, out = run_tool([command], cwd=tmp_path)
        assert code == 1 and flag in out, (command, out)
    code, out = run_tool([], cwd=tmp_path)
    assert code == 1
    for command in ('train', 'test', 'device_query', 'time'):
        assert command in out


def test_gpu_arithmetic_flags_are_checked_and_change_no_cpu_result(
        tmp_path, staged):
    """-allow_tf32, -allow_nondeterministic, -conv_algo and -channel_split
    choose the GPU's arithmetic; on the CPU they change nothing, and a bad
    -conv_algo or -channel_split is an error that names the value."""
    _, solver = staged
    code, plain = run_tool(['train', '--solver=' + solver], cwd=tmp_path)
    assert code == 0, plain
    code, opted = run_tool(['train', '--solver=' + solver, '--allow_tf32',
                            '--allow_nondeterministic', '--conv_algo=find'],
                           cwd=tmp_path)
    assert code == 0, opted
    loss = re.compile(r'Iteration \d+.*loss = ([-0-9.e]+)')
    assert loss.findall(plain) and loss.findall(plain) == loss.findall(opted)
    code, out = run_tool(['train', '--solver=' + solver,
                          '--conv_algo=fastest'], cwd=tmp_path)
    assert code == 1
    assert "conv_algo must be 'heuristic' or 'find', not 'fastest'" in out
    code, split = run_tool(['train', '--solver=' + solver,
                            '--channel_split=3'], cwd=tmp_path)
    assert code == 0, split
    assert loss.findall(plain) == loss.findall(split)
    code, out = run_tool(['train', '--solver=' + solver,
                          '--channel_split=9'], cwd=tmp_path)
    assert code == 1
    assert 'the channel split must be 0 (by shape) to 8 blocks, not 9' in out


def test_pycaffe_gpu_arithmetic_settings():
    assert caffe.allow_tf32() is False
    assert caffe.allow_nondeterministic() is False
    assert caffe.conv_algo() == 'heuristic'
    try:
        caffe.set_allow_tf32(True)
        caffe.set_allow_nondeterministic(True)
        caffe.set_conv_algo('find')
        assert caffe.allow_tf32() is True
        assert caffe.allow_nondeterministic() is True
        assert caffe.conv_algo() == 'find'
        with pytest.raises(caffe.CaffeError, match="not 'best'"):
            caffe.set_conv_algo('best')
        assert caffe.conv_algo() == 'find'
    finally:
        caffe.set_allow_tf32(False)
        caffe.set_allow_nondeterministic(False)
        caffe.set_conv_algo('heuristic')
