"""Tests of tools/extra/parse_log.py, extract_seconds.py and
plot_training_log.py: on a log in Caffe 1.0's format written out below, on
the log of a real 20-iteration `caffe train` run (build/tools/caffe, or
$CAFFE_BIN), and on the year-prefixed glog lines Caffe 1.0's parser cannot
read."""

import csv
import math
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EXTRA = os.path.join(REPO, 'tools', 'extra')
sys.path.insert(0, EXTRA)
import extract_seconds  # noqa: E402
import parse_log  # noqa: E402
import plot_training_log  # noqa: E402

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'

# The shape of `caffe train` output (solver.cpp / sgd_solver.cpp lines).
CAFFE_LOG = """\
I1121 10:00:00.000000  4242 caffe.cpp:204] Using CPUs.
I1121 10:00:00.500000  4242 net.cpp:121] Top shape: 64 1 28 28 (50176)
I1121 10:00:01.000000  4242 solver.cpp:208] Solving LeNet
I1121 10:00:01.000100  4242 solver.cpp:209] Learning Rate Policy: inv
I1121 10:00:01.100000  4242 solver.cpp:252] Iteration 0, Testing net (#0)
I1121 10:00:02.000000  4242 solver.cpp:309]     Test net output #0: accuracy = 0.1085
I1121 10:00:02.000100  4242 solver.cpp:309]     Test net output #1: loss = 2.33265 (* 1 = 2.33265 loss)
I1121 10:00:02.500000  4242 solver.cpp:163] Iteration 0 (0.11385 iter/s, 8.78348s/100 iters), loss = 2.33144
I1121 10:00:02.500100  4242 solver.cpp:200]     Train net output #0: loss = 2.33144 (* 1 = 2.33144 loss)
I1121 10:00:02.500200  4242 sgd_solver.cpp:87] Iteration 0, lr = 0.01
I1121 10:00:12.000000  4242 solver.cpp:163] Iteration 100 (7.80865 iter/s, 12.8063s/100 iters), loss = 0.675165
I1121 10:00:12.000100  4242 solver.cpp:200]     Train net output #0: loss = 0.675165 (* 1 = 0.675165 loss)
I1121 10:00:12.000200  4242 sgd_solver.cpp:87] Iteration 100, lr = 0.00992565
I1121 10:00:20.000000  4242 solver.cpp:252] Iteration 200, Testing net (#0)
I1121 10:00:21.000000  4242 solver.cpp:309]     Test net output #0: accuracy = 0.8177
I1121 10:00:21.000100  4242 solver.cpp:309]     Test net output #1: loss = 0.498788 (* 1 = 0.498788 loss)
I1121 10:00:21.500000  4242 solver.cpp:163] Iteration 200 (4.00856 iter/s, 24.9466s/100 iters), loss = 0.482046
I1121 10:00:21.500100  4242 solver.cpp:200]     Train net output #0: loss = 0.482046 (* 1 = 0.482046 loss)
I1121 10:00:21.500200  4242 sgd_solver.cpp:87] Iteration 200, lr = 9.85258e-03
I1121 10:00:30.000000  4242 solver.cpp:353] Snapshotting to binary proto file lenet_iter_300.caffemodel
I1121 10:00:30.100000  4242 solver.cpp:230] Iteration 300, loss = 0.4
I1121 10:00:30.200000  4242 solver.cpp:252] Iteration 300, Testing net (#0)
I1121 10:00:31.000000  4242 solver.cpp:309]     Test net output #0: accuracy = 0.8765
I1121 10:00:31.000100  4242 solver.cpp:309]     Test net output #1: loss = 0.333903 (* 1 = 0.333903 loss)
I1121 10:00:31.000200  4242 solver.cpp:235] Optimization Done.
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_parse_caffe_format_log(tmp_path):
    train, test = parse_log.parse_log(_write(tmp_path, 'a.log', CAFFE_LOG))
    assert [list(r.keys()) for r in train] == \
        [['NumIters', 'Seconds', 'LearningRate', 'loss']] * 3
    assert [list(r.keys()) for r in test] == \
        [['NumIters', 'Seconds', 'LearningRate', 'accuracy', 'loss']] * 3
    assert [r['NumIters'] for r in train] == [0, 100, 200]
    assert [r['loss'] for r in train] == [2.33144, 0.675165, 0.482046]
    assert [r['Seconds'] for r in train] == pytest.approx([1.5001, 11.0001,
                                                           20.5001])
    # A row takes the last lr logged before it; the first row the second's.
    assert [r['LearningRate'] for r in train] == [0.01, 0.01, 0.00992565]
    assert [r['NumIters'] for r in test] == [0, 200, 300]
    assert [r['accuracy'] for r in test] == [0.1085, 0.8177, 0.8765]
    assert [r['loss'] for r in test] == [2.33265, 0.498788, 0.333903]
    assert [r['Seconds'] for r in test] == pytest.approx([1.0, 20.0, 30.0])
    assert [r['LearningRate'] for r in test] == [0.00992565, 0.00992565,
                                                 0.00985258]


def test_single_test_pass_and_nan_learning_rate(tmp_path):
    text = '\n'.join(CAFFE_LOG.splitlines()[:9]) + '\n'
    train, test = parse_log.parse_log(_write(tmp_path, 'b.log', text))
    assert len(test) == 1 and test[0]['accuracy'] == 0.1085
    assert len(train) == 1 and train[0]['loss'] == 2.33144
    assert math.isnan(test[0]['LearningRate'])  # no lr logged yet


def test_new_year_in_the_middle_of_a_log(tmp_path):
    text = (
        'I1231 23:59:58.000000 1 solver.cpp:208] Solving X\n'
        'I1231 23:59:59.000000 1 solver.cpp:163] Iteration 0 (1 iter/s, 1s/1 '
        'iters), loss = 1\n'
        'I1231 23:59:59.500000 1 solver.cpp:200]     Train net output #0: '
        'loss = 1\n'
        'I0101 00:00:03.000000 1 solver.cpp:163] Iteration 1 (1 iter/s, 1s/1 '
        'iters), loss = 0.5\n'
        'I0101 00:00:03.000000 1 solver.cpp:200]     Train net output #0: '
        'loss = 0.5\n')
    train, _ = parse_log.parse_log(_write(tmp_path, 'c.log', text))
    assert [r['Seconds'] for r in train] == pytest.approx([1.5, 5.0])


def test_year_prefixed_glog_lines_are_refused_clearly(tmp_path):
    # glog >= 0.6 writes I<YYYYMMDD> by default; Caffe 1.0's parser reads
    # MMDD. The error names the file and how to log the Caffe 1.0 way.
    text = re.sub(r'^I(\d{4}) ', r'I2026\1 ', CAFFE_LOG, flags=re.M)
    path = _write(tmp_path, 'y.log', text)
    with pytest.raises(ValueError) as err:
        parse_log.parse_log(path)
    assert path in str(err.value)
    assert 'GLOG_log_year_in_prefix=false' in str(err.value)
    with pytest.raises(ValueError, match='year in its prefix'):
        extract_seconds.extract_datetime_from_line(
            'I20261121 10:00:01.000000 1 x.cpp:1] Solving', 2026)


def test_not_a_training_log(tmp_path):
    with pytest.raises(ValueError, match='no "Solving" line'):
        parse_log.parse_log(_write(tmp_path, 'n.log', 'hello\nworld\n'))


def test_parse_log_command_writes_csv(tmp_path):
    log = _write(tmp_path, 'caffe.INFO', CAFFE_LOG)
    out = tmp_path / 'out'
    out.mkdir()
    run = subprocess.run([sys.executable, os.path.join(EXTRA, 'parse_log.py'),
                          log, str(out), '--verbose'],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert 'Wrote %s' % (out / 'caffe.INFO.train') in run.stdout
    with open(out / 'caffe.INFO.test', newline='') as f:
        rows = list(csv.reader(f))
    assert rows[0] == ['NumIters', 'Seconds', 'LearningRate', 'accuracy',
                       'loss']
    assert rows[2] == ['200.0', '20.0', '0.00992565', '0.8177', '0.498788']
    assert len(rows) == 4
    with open(out / 'caffe.INFO.train', newline='') as f:
        assert len(list(csv.reader(f))) == 4

    run = subprocess.run([sys.executable, os.path.join(EXTRA, 'parse_log.py'),
                          log, str(out), '--delimiter', ';'],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert (out / 'caffe.INFO.train').read_text().splitlines()[1] == \
        '0.0;1.5001;0.01;2.33144'


# --- a real `caffe train` run ------------------------------------------------

TINY_NET = """
name: "Tiny"
layer { name: "data" type: "DummyData" top: "data" top: "label"
  dummy_data_param { shape { dim: 8 dim: 4 } shape { dim: 8 }
    data_filler { type: "gaussian" std: 1 }
    data_filler { type: "constant" value: 1 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 3
    weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "accuracy" type: "Accuracy" bottom: "ip" bottom: "label"
  top: "accuracy" include { phase: TEST } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
  top: "loss" }
"""

TINY_SOLVER = """
net: "net.prototxt"
test_iter: 2
test_interval: 10
base_lr: 0.1
lr_policy: "step"
gamma: 0.5
stepsize: 10
display: 5
max_iter: 20
snapshot_after_train: false
solver_mode: CPU
random_seed: 3
"""


@pytest.fixture(scope='module')
def live_log(tmp_path_factory):
    caffe_bin = os.environ.get('CAFFE_BIN',
                               os.path.join(REPO, 'build', 'tools', 'caffe'))
    assert os.access(caffe_bin, os.X_OK), (
        'the caffe tool is needed (build it, or set CAFFE_BIN): %s'
        % caffe_bin)
    work = tmp_path_factory.mktemp('train')
    (work / 'net.prototxt').write_text(TINY_NET)
    (work / 'solver.prototxt').write_text(TINY_SOLVER)
    env = dict(os.environ, GLOG_log_year_in_prefix='false')
    run = subprocess.run([caffe_bin, 'train', '--solver=solver.prototxt'],
                         cwd=str(work), env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    log = work / 'tiny.log'
    log.write_text(run.stdout + run.stderr)
    return str(log)


def test_parse_real_caffe_train_log(live_log):
    text = open(live_log).read()
    train, test = parse_log.parse_log(live_log)
    assert [r['NumIters'] for r in train] == [0, 5, 10, 15]
    assert [r['NumIters'] for r in test] == [0, 10, 20]
    assert list(test[0].keys()) == ['NumIters', 'Seconds', 'LearningRate',
                                    'accuracy', 'loss']
    # The values are those the log prints.
    logged = [float(x) for x in
              re.findall(r'Train net output #0: loss = (\S+)', text)]
    assert [r['loss'] for r in train] == logged
    logged = [float(x) for x in
              re.findall(r'Test net output #0: accuracy = (\S+)', text)]
    assert [r['accuracy'] for r in test] == logged
    # step policy: lr 0.1 until iteration 10, then 0.05 (logged one
    # display late, as Caffe's parser has it).
    assert [r['LearningRate'] for r in train] == [0.1, 0.1, 0.1, 0.05]
    assert [r['LearningRate'] for r in test] == [0.1, 0.1, 0.05]
    seconds = [r['Seconds'] for r in train]
    assert all(s >= 0 for s in seconds) and seconds == sorted(seconds)


# --- plots ---------------------------------------------------------------

def test_chart_types_keep_caffe_numbers():
    assert plot_training_log.get_supported_chart_types() == [
        'Test accuracy  vs. Iters', 'Test accuracy  vs. Seconds',
        'Test loss  vs. Iters', 'Test loss  vs. Seconds',
        'Train learning rate  vs. Iters', 'Train learning rate  vs. Seconds',
        'Train loss  vs. Iters', 'Train loss  vs. Seconds']


@pytest.mark.parametrize('chart_type', range(8))
def test_plot_every_chart_type(tmp_path, live_log, chart_type):
    first = _write(tmp_path, 'first.log', CAFFE_LOG)
    png = str(tmp_path / 'chart.png')
    fig = plot_training_log.plot_chart(chart_type, png, [first, live_log])
    data = open(png, 'rb').read()
    assert data[:8] == PNG_MAGIC and len(data) > 1000
    ax = fig.axes[0]
    assert len(ax.lines) == 2
    assert [l.get_label() for l in ax.lines] == ['first', 'tiny']
    x_field, y_field = plot_training_log.get_field_descriptions(chart_type)
    assert ax.get_title() == plot_training_log.get_supported_chart_types()[
        chart_type]
    assert (ax.get_xlabel(), ax.get_ylabel()) == (x_field, y_field)

    train, test = parse_log.parse_log(live_log)
    rows = test if y_field.startswith('Test') else train
    x_key = {'Iters': 'NumIters', 'Seconds': 'Seconds'}[x_field]
    y_key = {'Test accuracy': 'accuracy', 'Test loss': 'loss',
             'Train loss': 'loss', 'Train learning rate': 'LearningRate'}[
                 y_field]
    assert list(ax.lines[1].get_xdata()) == [r[x_key] for r in rows]
    assert list(ax.lines[1].get_ydata()) == [r[y_key] for r in rows]


def test_plot_command_line(tmp_path, capsys):
    log = _write(tmp_path, 'run.log', CAFFE_LOG)
    png = str(tmp_path / 'out.png')
    assert plot_training_log.main(['plot', '6', png, log]) == 0
    assert open(png, 'rb').read()[:8] == PNG_MAGIC
    assert plot_training_log.main(['plot', '8', png, log]) == 1
    assert 'not a valid chart type' in capsys.readouterr().err
    assert plot_training_log.main(['plot', '0', str(tmp_path / 'o.jpg'),
                                   log]) == 1
    other = _write(tmp_path, 'run.txt', CAFFE_LOG)
    assert plot_training_log.main(['plot', '0', png, other]) == 1
    assert 'must end in .log' in capsys.readouterr().err
    assert plot_training_log.main(['plot']) == 1
    assert '7: Train loss  vs. Seconds' in capsys.readouterr().out

    run = subprocess.run([sys.executable,
                          os.path.join(EXTRA, 'plot_training_log.py'), '2',
                          str(tmp_path / 'cli.png'), log],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / 'cli.png').read_bytes()[:8] == PNG_MAGIC


def test_parse_log_sh_writes_caffes_tables(tmp_path, live_log):
    text = open(live_log).read()
    run = subprocess.run(['sh', os.path.join(REPO, 'tools', 'extra',
                                             'parse_log.sh'), live_log],
                         cwd=str(tmp_path), capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    name = os.path.basename(live_log)

    def rows(ext):
        lines = (tmp_path / (name + ext)).read_text().splitlines()
        return lines[0].split(), [l.split() for l in lines[1:]]

    header, test = rows('.test')
    assert header == ['#Iters', 'Seconds', 'TestAccuracy', 'TestLoss']
    assert [r[0] for r in test] == ['0', '10', '20']
    accuracy = re.findall(r'Test net output #0: accuracy = (\S+)', text)
    loss = re.findall(r'Test net output #1: loss = (\S+)', text)
    assert [r[2] for r in test] == accuracy
    assert [r[3] for r in test] == loss
    header, train = rows('.train')
    assert header == ['#Iters', 'Seconds', 'TrainingLoss', 'LearningRate']
    # Every display, and the final loss Solve logs (no rate after it).
    displayed = re.findall(
        r'Iteration (\d+)(?: \([^)]*\))?, loss = (\S+)', text)
    assert [(r[0], r[2]) for r in train] == displayed
    assert [r[0] for r in train] == ['0', '5', '10', '15', '20']
    # The rate logged right after each display: step policy, 0.05 from 10.
    assert [r[3] for r in train] == ['0.1', '0.1', '0.05', '0.05', 'nan']
    seconds = [float(r[1]) for r in train + test]
    assert all(s >= 0 for s in seconds)
    run = subprocess.run(['sh', os.path.join(REPO, 'tools', 'extra',
                                             'parse_log.sh')],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and 'Usage' in run.stderr


def test_summarize_lists_every_layer():
    run = subprocess.run(
        [sys.executable, os.path.join(REPO, 'tools', 'extra', 'summarize.py'),
         os.path.join(REPO, 'examples', 'mnist', 'lenet_train_test.prototxt'),
         '--phase', 'TRAIN'], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines()]
    assert rows[0] == ['ID', 'name', 'type', 'settings', 'bottoms', 'tops']
    names = [r[1] for r in rows[1:]]
    # TRAIN: one data layer, no accuracy.
    assert names == ['mnist', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1',
                     'relu1', 'ip2', 'loss']
    by_name = {r[1]: r for r in rows[1:]}
    assert by_name['conv1'][3:] == ['20', '5x5', 's1', 'p0', 'data', 'conv1']
    assert by_name['pool2'][3:7] == ['MAX', '2x2', 's2', 'p0']
    assert by_name['relu1'][-2:] == ['(in', 'place)']
    assert by_name['mnist'][3:] == ['batch', '64', 'data,label']
