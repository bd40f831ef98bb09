"""Shared pieces of the pycaffe tests: small nets, files in tmp dirs, and the
`caffe` command-line tool.

The tool is $CAFFE_TOOL, else <repo>/build/tools/caffe; tests that need it
fail (not skip) when it is missing, since the build must provide it.
"""
import os
import re
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..'))
PYTHON_DIR = os.path.join(REPO, 'python')

# data (4 x 3) -> ip (2 outputs) -> Euclidean loss against `target`.
IP_NET = """
name: "ipnet"
force_backward: true
layer { name: "data" type: "Input" top: "data"
        input_param { shape { dim: 4 dim: 3 } } }
layer { name: "target" type: "Input" top: "target"
        input_param { shape { dim: 4 dim: 2 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
        inner_product_param { num_output: 2
          weight_filler { type: "gaussian" std: 1 }
          bias_filler { type: "gaussian" std: 1 } } }
layer { name: "loss" type: "EuclideanLoss" bottom: "ip" bottom: "target"
        top: "loss" }
"""

# A classifier trained from arrays handed over with set_input_arrays.
MEMORY_NET = """
name: "memnet"
layer { name: "data" type: "MemoryData" top: "data" top: "label"
        memory_data_param { batch_size: %(batch)d channels: 4 height: 1
                            width: 1 } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
        inner_product_param { num_output: 2
          weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
        top: "loss" }
"""

# Deterministic data from DummyData, so the tool and Python see the same
# inputs: two constant-filled batches of 2 x 3, labels 1.
DUMMY_NET = """
name: "dummynet"
layer { name: "data" type: "DummyData" top: "data" top: "label"
        dummy_data_param {
          shape { dim: 2 dim: 3 } shape { dim: 2 }
          data_filler { type: "constant" value: 0.5 }
          data_filler { type: "constant" value: 1 } } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
        inner_product_param { num_output: 2
          weight_filler { type: "gaussian" std: 1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label"
        top: "loss" }
"""


def write(directory, name, text):
    path = os.path.join(str(directory), name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def caffe_tool():
    tool = os.environ.get('CAFFE_TOOL',
                          os.path.join(REPO, 'build', 'tools', 'caffe'))
    if not os.access(tool, os.X_OK):
        pytest.fail('the caffe tool is missing: %s (build it, or set '
                    'CAFFE_TOOL)' % tool)
    return tool


def run_tool(args, cwd):
    """Runs the caffe tool; returns (returncode, combined output)."""
    env = dict(os.environ)
    # The caller's PYTHONPATH first: a sanitized build's tool must import
    # that build's caffe package, not the source tree's module.
    env['PYTHONPATH'] = os.pathsep.join(
        [p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p] +
        [PYTHON_DIR])
    env['GLOG_minloglevel'] = '0'
    proc = subprocess.run([caffe_tool()] + list(args), cwd=str(cwd), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=120)
    return proc.returncode, proc.stdout


def logged_value(output, name):
    """The last `<name> = <value>` the tool logged."""
    values = re.findall(r'(?<![\w.])%s = ([-+0-9.eE]+)' % re.escape(name),
                        output)
    assert values, 'no "%s = ..." in the tool output:\n%s' % (name, output)
    return float(values[-1])


def readable(blob, what='data'):
    """Whether reading blob.data (or .diff) is allowed under mem_param."""
    import caffe
    try:
        getattr(blob, what)
        return True
    except caffe.BlobNotReadableError:
        return False
