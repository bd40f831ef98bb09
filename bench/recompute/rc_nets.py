#!/usr/bin/python3
"""Nets and plan-only probes for bench/recompute/run_recompute_bench.sh.

  rc_nets.py resnet NET BATCH OUTDIR
      models/NET/train_val.prototxt at BATCH with DummyData inputs, built by
      bench/memory/mem_bench.py (NET_plain: no mem_param, NET_mem:
      mem_param level 2 STATIC), plus NET_sqrt: NET_mem with
      mem_param.recompute { auto: SQRT }, and NET_sqrt2: the same with
      levels: 2 (nested recomputation).
  rc_nets.py plain DEPLOY OUTDIR NAME
      A plain chain written by `models/gen_models.py plain` (a deploy net:
      Input -> convs -> pool -> fc -> Softmax) turned into a training net:
      its Input becomes DummyData with a "label" top (gaussian images, label
      0) and the final Softmax a SoftmaxWithLoss. Writes NAME_plain, NAME_mem
      and NAME_sqrt (.prototxt) like `resnet`.
  rc_nets.py search NET BUDGET_BYTES LO HI [VARIANTS]
      For NET_mem, NET_sqrt and NET_sqrt2, the largest batch in [LO, HI] whose planned
      activations and gradients (the plan `mem_param` applies, read from
      pycaffe's Net.memory_report() after building the net -- no iteration
      runs) stay within BUDGET_BYTES. Prints "PROBE caffe <variant> <batch>
      <bytes>" per probe and one "RESULT caffe <variant> ..." line each.
      VARIANTS: a comma-separated subset of mem,sqrt,sqrt2 (default all).

Only Debian's /usr/bin/python3 runs this (generated caffe_pb2, pycaffe built
in python/caffe).
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench", "memory"))
sys.path.insert(0, HERE)
# Importing caffe_pb2 loads pycaffe, whose logging reads this once: the
# probes' net set-up logs would run to megabytes.
os.environ.setdefault("GLOG_minloglevel", "2")

import mem_bench  # noqa: E402  (net building shared with the memory bench)
from batch_search import largest_fitting  # noqa: E402


def fail(msg):
    sys.stderr.write("rc_nets.py: %s\n" % msg)
    sys.exit(1)


def proto():
    try:
        from caffe.proto import caffe_pb2
        from google.protobuf import text_format
    except ImportError as e:
        fail("cannot import caffe_pb2 (%s); generate python/caffe/proto/"
             "caffe_pb2.py with protoc first" % e)
    return caffe_pb2, text_format


def read_net(path):
    caffe_pb2, text_format = proto()
    param = caffe_pb2.NetParameter()
    try:
        with open(path) as f:
            text_format.Merge(f.read(), param)
    except (OSError, text_format.ParseError) as e:
        fail("cannot read %s: %s" % (path, e))
    return param


def write_net(param, path):
    _, text_format = proto()
    with open(path, "w") as f:
        f.write(text_format.MessageToString(param))


def write_sqrt(mem_path, sqrt_path, levels=1):
    """The mem_param copy with SQRT recomputation added (nested with
    levels=2); everything else in mem_param stays as the memory benchmark
    set it."""
    caffe_pb2, _ = proto()
    param = read_net(mem_path)
    if not param.HasField("mem_param"):
        fail("%s has no mem_param to add recomputation to" % mem_path)
    param.mem_param.recompute.auto = caffe_pb2.RecomputeParameter.SQRT
    if levels != 1:
        param.mem_param.recompute.levels = levels
    write_net(param, sqrt_path)


def resnet_nets(net, batch, outdir):
    mem_bench.make_nets(net, batch, outdir)
    base = os.path.join(outdir, net)
    write_sqrt(base + "_mem.prototxt", base + "_sqrt.prototxt")
    write_sqrt(base + "_mem.prototxt", base + "_sqrt2.prototxt", levels=2)
    return base


def plain_nets(deploy, outdir, name):
    caffe_pb2, _ = proto()
    param = read_net(deploy)
    inputs = [l for l in param.layer if l.type == "Input"]
    softmax = [l for l in param.layer if l.type == "Softmax"]
    if len(inputs) != 1 or len(inputs[0].top) != 1 or len(softmax) != 1:
        fail("%s: expected one single-top Input layer and one Softmax layer "
             "(a plain chain from models/gen_models.py)" % deploy)
    data = inputs[0]
    shape = list(data.input_param.shape[0].dim)
    data.type = "DummyData"
    data.ClearField("input_param")
    data.top.append("label")
    dummy = data.dummy_data_param
    dummy.shape.add().dim.extend(shape)
    filler = dummy.data_filler.add()
    filler.type = "gaussian"
    filler.std = 1.0
    dummy.shape.add().dim.extend([shape[0]])
    dummy.data_filler.add().type = "constant"      # label 0: a valid class
    loss = softmax[0]
    loss.type = "SoftmaxWithLoss"
    loss.bottom.append("label")
    del loss.top[:]
    loss.top.append("loss")
    loss.name = "loss"

    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, name)
    param.ClearField("mem_param")
    write_net(param, base + "_plain.prototxt")
    # The same mem_param as the memory benchmark gives its nets.
    mp = param.mem_param
    mp.optimize_train = True
    mp.optimize_test = True
    mp.level = 2
    mp.release = caffe_pb2.MemoryOptimizationParameter.STATIC
    write_net(param, base + "_mem.prototxt")
    write_sqrt(base + "_mem.prototxt", base + "_sqrt.prototxt")
    return base


def planned_bytes(model):
    """Activation and gradient bytes of the plan of `model` (TRAIN), from
    building the net; nothing runs, and the plan's buffers are allocated
    but not touched, so a probe of a large batch stays cheap."""
    try:
        import caffe
    except ImportError as e:
        fail("cannot import pycaffe from %s/python (%s); build it first"
             % (ROOT, e))
    net = caffe.Net(model, caffe.TRAIN)
    report = net.memory_report()
    if report is None:
        fail("%s: the net has no memory plan (mem_param missing?)" % model)
    planned = int(report["planned_bytes"])
    del net
    return planned


def search(net, budget, lo, hi, variants=("mem", "sqrt", "sqrt2")):
    with tempfile.TemporaryDirectory(prefix="rc_search_") as tmp:
        for variant in variants:
            def probe(batch):
                d = os.path.join(tmp, str(batch))
                if not os.path.isdir(d):
                    resnet_nets(net, batch, d)
                b = planned_bytes(os.path.join(d, "%s_%s.prototxt"
                                               % (net, variant)))
                print("PROBE caffe %s %d %d" % (variant, batch, b), flush=True)
                return b
            r = largest_fitting(probe, budget, lo, hi)
            print("RESULT caffe %s best=%s best_bytes=%s over=%s over_bytes=%s "
                  "probes=%d exact=%d" % (variant, r["best"], r["best_bytes"],
                                          r["over"], r["over_bytes"],
                                          len(r["probes"]), r["exact"]),
                  flush=True)


def main(argv):
    usage = ("usage: rc_nets.py resnet NET BATCH OUTDIR | plain DEPLOY OUTDIR "
             "NAME | search NET BUDGET_BYTES LO HI [VARIANTS]")
    try:
        if argv[:1] == ["resnet"] and len(argv) == 4:
            resnet_nets(argv[1], int(argv[2]), argv[3])
        elif argv[:1] == ["plain"] and len(argv) == 4:
            plain_nets(argv[1], argv[2], argv[3])
        elif argv[:1] == ["search"] and len(argv) in (5, 6):
            variants = argv[5].split(",") if len(argv) == 6 else None
            search(argv[1], int(float(argv[2])), int(argv[3]), int(argv[4]),
                   *([variants] if variants else []))
        else:
            fail(usage)
    except ValueError as e:
        fail("%s (%s)" % (usage, e))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
