#!/usr/bin/python3
"""Generate LeanCaffe's reference model definitions (prototxt).

The layer graphs follow the published architectures (LeNet, CIFAR-10
"quick", CaffeNet, AlexNet, GoogLeNet, VGG-16, ResNet-50/101/152) and use
Caffe 1.0 layer and blob names so that reference weights load by name.
Everything is written from this script; rerun it to regenerate:

    /usr/bin/python3 models/gen_models.py            # all committed models
    /usr/bin/python3 models/gen_models.py googlenet resnet50
    /usr/bin/python3 models/gen_models.py plain --depths 8 16 32 64 \
        --channels 32 --size 32 --batch 16 --out models/plain_chain

Only these layer types are emitted: Data, Input, Convolution, Pooling, LRN,
InnerProduct, ReLU, Dropout, BatchNorm, Scale, Eltwise, Concat, Softmax,
SoftmaxWithLoss, Accuracy, Flatten.

The script uses only the standard library.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------
# A tiny protobuf text-format writer
# ---------------------------------------------------------------------------

class Enum(str):
    """A value written bare (enum constants: MAX, TRAIN, LMDB, SUM...)."""


def _scalar(v):
    if isinstance(v, Enum):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError("unsupported value %r" % (v,))


def _emit(out, key, value, indent):
    pad = "  " * indent
    if isinstance(value, dict):
        out.append("%s%s {" % (pad, key))
        for k, v in value.items():
            _emit(out, k, v, indent + 1)
        out.append("%s}" % pad)
    elif isinstance(value, (list, tuple)):
        for v in value:          # repeated field
            _emit(out, key, v, indent)
    elif value is None:
        pass
    else:
        out.append("%s%s: %s" % (pad, key, _scalar(value)))


class Net(object):
    def __init__(self, name, header=None):
        self.name = name
        self.header = header or {}   # top-level fields after name
        self.layers = []

    def add(self, name, type_, bottom=(), top=(), **fields):
        layer = {"name": name, "type": type_}
        layer["bottom"] = list(bottom) if not isinstance(bottom, str) else [bottom]
        layer["top"] = list(top) if not isinstance(top, str) else [top]
        for k, v in fields.items():
            layer[k] = v
        self.layers.append(layer)
        return layer

    def text(self, comment=None):
        out = []
        if comment:
            for line in comment.strip().splitlines():
                out.append("# " + line if line else "#")
        out.append('name: %s' % _scalar(self.name))
        for k, v in self.header.items():
            _emit(out, k, v, 0)
        for layer in self.layers:
            _emit(out, "layer", layer, 0)
        return "\n".join(out) + "\n"


def write(path, text):
    d = os.path.dirname(path)
    if d and not os.path.isdir(d):
        os.makedirs(d)
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s" % os.path.relpath(path, os.getcwd()))


# ---------------------------------------------------------------------------
# Layer helpers
# ---------------------------------------------------------------------------

TRAIN = {"phase": Enum("TRAIN")}
TEST = {"phase": Enum("TEST")}

# Learning-rate multipliers used by the reference models: weights at the
# base rate with decay, biases at twice the rate without decay.
PARAM_WB = [{"lr_mult": 1, "decay_mult": 1}, {"lr_mult": 2, "decay_mult": 0}]
PARAM_WB_NODECAY = [{"lr_mult": 1}, {"lr_mult": 2}]   # LeNet / CIFAR style
PARAM_BN = [{"lr_mult": 0, "decay_mult": 0}] * 3


def gaussian(std):
    return {"type": "gaussian", "std": std}


def xavier():
    return {"type": "xavier"}


def msra():
    return {"type": "msra"}


def constant(v):
    return {"type": "constant", "value": v}


def data_layers(net, train_source, test_source, train_batch, test_batch,
                crop=0, mean_value=None, scale=None, mirror=True):
    """Two Data layers "data" (tops data, label), one per phase."""
    for phase, source, batch in ((TRAIN, train_source, train_batch),
                                 (TEST, test_source, test_batch)):
        tp = {}
        if scale is not None:
            tp["scale"] = scale
        if mirror:
            tp["mirror"] = phase is TRAIN
        if crop:
            tp["crop_size"] = crop
        if mean_value:
            tp["mean_value"] = list(mean_value)
        fields = {"include": phase}
        if tp:
            fields["transform_param"] = tp
        fields["data_param"] = {"source": source, "batch_size": batch,
                                "backend": Enum("LMDB")}
        net.add("data", "Data", (), ("data", "label"), **fields)


def input_layer(net, shape, name="data"):
    net.add(name, "Input", (), name,
            input_param={"shape": {"dim": list(shape)}})


def conv(net, name, bottom, num_output, kernel, stride=1, pad=0, group=1,
         wf=None, bf=None, bias_term=True, param=None, top=None):
    cp = {"num_output": num_output}
    if not bias_term:
        cp["bias_term"] = False
    if pad:
        cp["pad"] = pad
    cp["kernel_size"] = kernel
    if stride != 1:
        cp["stride"] = stride
    if group != 1:
        cp["group"] = group
    if wf:
        cp["weight_filler"] = wf
    if bf and bias_term:
        cp["bias_filler"] = bf
    fields = {}
    if param:
        fields["param"] = param if bias_term else param[:1]
    fields["convolution_param"] = cp
    net.add(name, "Convolution", bottom, top or name, **fields)
    return top or name


def fc(net, name, bottom, num_output, wf=None, bf=None, param=None, top=None):
    ip = {"num_output": num_output}
    if wf:
        ip["weight_filler"] = wf
    if bf:
        ip["bias_filler"] = bf
    fields = {}
    if param:
        fields["param"] = param
    fields["inner_product_param"] = ip
    net.add(name, "InnerProduct", bottom, top or name, **fields)
    return top or name


def relu(net, name, blob):
    net.add(name, "ReLU", blob, blob)
    return blob


def dropout(net, name, blob, ratio):
    net.add(name, "Dropout", blob, blob, dropout_param={"dropout_ratio": ratio})
    return blob


def pool(net, name, bottom, method, kernel=None, stride=None, pad=0,
         global_pooling=False, top=None):
    pp = {"pool": Enum(method)}
    if global_pooling:
        pp["global_pooling"] = True
    else:
        pp["kernel_size"] = kernel
        if stride is not None:
            pp["stride"] = stride
    if pad:
        pp["pad"] = pad
    net.add(name, "Pooling", bottom, top or name, pooling_param=pp)
    return top or name


def lrn(net, name, bottom, top=None):
    net.add(name, "LRN", bottom, top or name,
            lrn_param={"local_size": 5, "alpha": 0.0001, "beta": 0.75})
    return top or name


def batchnorm_scale(net, bn_name, scale_name, blob, train):
    """In-place BatchNorm + Scale(bias_term). use_global_stats is left unset
    so that Caffe picks it by phase (batch statistics in TRAIN, the stored
    running averages in TEST)."""
    fields = {}
    if train:
        fields["param"] = PARAM_BN
    net.add(bn_name, "BatchNorm", blob, blob, **fields)
    net.add(scale_name, "Scale", blob, blob, scale_param={"bias_term": True})
    return blob


def softmax_head(net, bottom, train, accuracy=(("accuracy", 1),),
                 loss_name="loss", loss_top="loss", loss_weight=None,
                 prob="prob"):
    if train:
        for name, k in accuracy:
            fields = {"include": TEST}
            if k != 1:
                fields["accuracy_param"] = {"top_k": k}
            net.add(name, "Accuracy", (bottom, "label"), name, **fields)
        fields = {}
        if loss_weight is not None:
            fields["loss_weight"] = loss_weight
        net.add(loss_name, "SoftmaxWithLoss", (bottom, "label"), loss_top,
                **fields)
    else:
        net.add(prob, "Softmax", bottom, prob)


IMAGENET_TRAIN = "examples/imagenet/ilsvrc12_train_lmdb"
IMAGENET_VAL = "examples/imagenet/ilsvrc12_val_lmdb"
IMAGENET_MEAN_BGR = (104, 117, 123)


# ---------------------------------------------------------------------------
# LeNet (Caffe's MNIST example)
# ---------------------------------------------------------------------------

def lenet(train, batch=64):
    net = Net("LeNet")
    if train:
        data_layers(net, "examples/mnist/mnist_train_lmdb",
                    "examples/mnist/mnist_test_lmdb", 64, 100,
                    scale=0.00390625, mirror=False)
    else:
        input_layer(net, (batch, 1, 28, 28))
    p = PARAM_WB_NODECAY if train else None
    conv(net, "conv1", "data", 20, 5, wf=xavier(), bf=constant(0), param=p)
    pool(net, "pool1", "conv1", "MAX", 2, 2)
    conv(net, "conv2", "pool1", 50, 5, wf=xavier(), bf=constant(0), param=p)
    pool(net, "pool2", "conv2", "MAX", 2, 2)
    fc(net, "ip1", "pool2", 500, wf=xavier(), bf=constant(0), param=p)
    relu(net, "relu1", "ip1")
    fc(net, "ip2", "ip1", 10, wf=xavier(), bf=constant(0), param=p)
    softmax_head(net, "ip2", train)
    return net


# ---------------------------------------------------------------------------
# CIFAR-10 quick
# ---------------------------------------------------------------------------

# Per-channel CIFAR-10 training-set means (0..255), in the channel order
# that Caffe's convert_cifar_data writes (the dataset's own R, G, B planes).
CIFAR_MEAN = (125.3, 123.0, 113.9)


def cifar10_quick(train, batch=64):
    net = Net("CIFAR10_quick")
    if train:
        data_layers(net, "examples/cifar10/cifar10_train_lmdb",
                    "examples/cifar10/cifar10_test_lmdb", 100, 100,
                    mean_value=CIFAR_MEAN, mirror=False)
    else:
        input_layer(net, (batch, 3, 32, 32))
    p = PARAM_WB_NODECAY if train else None
    conv(net, "conv1", "data", 32, 5, pad=2, wf=gaussian(0.0001),
         bf=constant(0), param=p)
    pool(net, "pool1", "conv1", "MAX", 3, 2)
    relu(net, "relu1", "pool1")
    conv(net, "conv2", "pool1", 32, 5, pad=2, wf=gaussian(0.01),
         bf=constant(0), param=p)
    relu(net, "relu2", "conv2")
    pool(net, "pool2", "conv2", "AVE", 3, 2)
    conv(net, "conv3", "pool2", 64, 5, pad=2, wf=gaussian(0.01),
         bf=constant(0), param=p)
    relu(net, "relu3", "conv3")
    pool(net, "pool3", "conv3", "AVE", 3, 2)
    fc(net, "ip1", "pool3", 64, wf=gaussian(0.1), bf=constant(0), param=p)
    fc(net, "ip2", "ip1", 10, wf=gaussian(0.1), bf=constant(0), param=p)
    softmax_head(net, "ip2", train)
    return net


# ---------------------------------------------------------------------------
# CaffeNet and AlexNet
# ---------------------------------------------------------------------------

def _alexnet_family(name, train, batch, norm_before_pool, b1):
    """CaffeNet pools before LRN (conv-relu-pool-norm); AlexNet normalizes
    before pooling (conv-relu-norm-pool). b1 is the bias used by conv2/4/5
    and fc6/7 (1 for CaffeNet, 0.1 for AlexNet)."""
    net = Net(name)
    if train:
        data_layers(net, IMAGENET_TRAIN, IMAGENET_VAL, 256, 50, crop=227,
                    mean_value=IMAGENET_MEAN_BGR)
    else:
        input_layer(net, (batch, 3, 227, 227))
    p = PARAM_WB if train else None

    def stage(i, bottom, n, k, stride, pad, group, bias):
        c = conv(net, "conv%d" % i, bottom, n, k, stride=stride, pad=pad,
                 group=group, wf=gaussian(0.01), bf=constant(bias), param=p)
        relu(net, "relu%d" % i, c)
        if norm_before_pool:
            lrn(net, "norm%d" % i, c)
            return pool(net, "pool%d" % i, "norm%d" % i, "MAX", 3, 2)
        pool(net, "pool%d" % i, c, "MAX", 3, 2)
        return lrn(net, "norm%d" % i, "pool%d" % i)

    x = stage(1, "data", 96, 11, 4, 0, 1, 0)
    x = stage(2, x, 256, 5, 1, 2, 2, b1)
    conv(net, "conv3", x, 384, 3, pad=1, wf=gaussian(0.01), bf=constant(0),
         param=p)
    relu(net, "relu3", "conv3")
    conv(net, "conv4", "conv3", 384, 3, pad=1, group=2, wf=gaussian(0.01),
         bf=constant(b1), param=p)
    relu(net, "relu4", "conv4")
    conv(net, "conv5", "conv4", 256, 3, pad=1, group=2, wf=gaussian(0.01),
         bf=constant(b1), param=p)
    relu(net, "relu5", "conv5")
    pool(net, "pool5", "conv5", "MAX", 3, 2)
    fc(net, "fc6", "pool5", 4096, wf=gaussian(0.005), bf=constant(b1), param=p)
    relu(net, "relu6", "fc6")
    dropout(net, "drop6", "fc6", 0.5)
    fc(net, "fc7", "fc6", 4096, wf=gaussian(0.005), bf=constant(b1), param=p)
    relu(net, "relu7", "fc7")
    dropout(net, "drop7", "fc7", 0.5)
    fc(net, "fc8", "fc7", 1000, wf=gaussian(0.01), bf=constant(0), param=p)
    softmax_head(net, "fc8", train)
    return net


def caffenet(train, batch=10):
    return _alexnet_family("CaffeNet", train, batch, False, 1)


def alexnet(train, batch=10):
    return _alexnet_family("AlexNet", train, batch, True, 0.1)


# ---------------------------------------------------------------------------
# GoogLeNet (bvlc_googlenet)
# ---------------------------------------------------------------------------

# name: (1x1, 3x3_reduce, 3x3, 5x5_reduce, 5x5, pool_proj)
INCEPTION = [
    ("3a", (64, 96, 128, 16, 32, 32)),
    ("3b", (128, 128, 192, 32, 96, 64)),
    ("4a", (192, 96, 208, 16, 48, 64)),
    ("4b", (160, 112, 224, 24, 64, 64)),
    ("4c", (128, 128, 256, 24, 64, 64)),
    ("4d", (112, 144, 288, 32, 64, 64)),
    ("4e", (256, 160, 320, 32, 128, 128)),
    ("5a", (256, 160, 320, 32, 128, 128)),
    ("5b", (384, 192, 384, 48, 128, 128)),
]


def googlenet(train, batch=10):
    net = Net("GoogleNet")
    if train:
        data_layers(net, IMAGENET_TRAIN, IMAGENET_VAL, 32, 50, crop=224,
                    mean_value=IMAGENET_MEAN_BGR)
    else:
        input_layer(net, (batch, 3, 224, 224))
    p = PARAM_WB if train else None

    def cr(name, relu_name, bottom, n, k, stride=1, pad=0):
        c = conv(net, name, bottom, n, k, stride=stride, pad=pad,
                 wf=xavier(), bf=constant(0.2), param=p)
        return relu(net, relu_name, c)

    x = cr("conv1/7x7_s2", "conv1/relu_7x7", "data", 64, 7, 2, 3)
    x = pool(net, "pool1/3x3_s2", x, "MAX", 3, 2)
    x = lrn(net, "pool1/norm1", x)
    x = cr("conv2/3x3_reduce", "conv2/relu_3x3_reduce", x, 64, 1)
    x = cr("conv2/3x3", "conv2/relu_3x3", x, 192, 3, pad=1)
    x = lrn(net, "conv2/norm2", x)
    x = pool(net, "pool2/3x3_s2", x, "MAX", 3, 2)

    def inception(tag, bottom, n1, n3r, n3, n5r, n5, npp):
        pre = "inception_%s/" % tag
        b1 = cr(pre + "1x1", pre + "relu_1x1", bottom, n1, 1)
        r3 = cr(pre + "3x3_reduce", pre + "relu_3x3_reduce", bottom, n3r, 1)
        b3 = cr(pre + "3x3", pre + "relu_3x3", r3, n3, 3, pad=1)
        r5 = cr(pre + "5x5_reduce", pre + "relu_5x5_reduce", bottom, n5r, 1)
        b5 = cr(pre + "5x5", pre + "relu_5x5", r5, n5, 5, pad=2)
        bp = pool(net, pre + "pool", bottom, "MAX", 3, 1, pad=1)
        bp = cr(pre + "pool_proj", pre + "relu_pool_proj", bp, npp, 1)
        net.add(pre + "output", "Concat", (b1, b3, b5, bp), pre + "output")
        return pre + "output"

    def aux_head(i, bottom, loss_top):
        pre = "loss%d/" % i
        x = pool(net, pre + "ave_pool", bottom, "AVE", 5, 3)
        x = cr(pre + "conv", pre + "relu_conv", x, 128, 1)
        fc(net, pre + "fc", x, 1024, wf=xavier(), bf=constant(0.2), param=p)
        relu(net, pre + "relu_fc", pre + "fc")
        dropout(net, pre + "drop_fc", pre + "fc", 0.7)
        fc(net, pre + "classifier", pre + "fc", 1000, wf=xavier(),
           bf=constant(0), param=p)
        net.add(pre + "loss", "SoftmaxWithLoss",
                (pre + "classifier", "label"), loss_top, loss_weight=0.3)
        for k in (1, 5):
            fields = {"include": TEST}
            if k != 1:
                fields["accuracy_param"] = {"top_k": k}
            net.add(pre + "top-%d" % k, "Accuracy",
                    (pre + "classifier", "label"), pre + "top-%d" % k,
                    **fields)

    for tag, cfg in INCEPTION:
        if tag == "4a":
            x = pool(net, "pool3/3x3_s2", x, "MAX", 3, 2)
        if tag == "5a":
            x = pool(net, "pool4/3x3_s2", x, "MAX", 3, 2)
        x = inception(tag, x, *cfg)
        if train and tag == "4a":
            aux_head(1, x, "loss1/loss1")
        if train and tag == "4d":
            # The reference model names this top "loss2/loss1" (sic).
            aux_head(2, x, "loss2/loss1")

    x = pool(net, "pool5/7x7_s1", x, "AVE", 7, 1)
    dropout(net, "pool5/drop_7x7_s1", x, 0.4)
    fc(net, "loss3/classifier", x, 1000, wf=xavier(), bf=constant(0), param=p)
    if train:
        net.add("loss3/loss3", "SoftmaxWithLoss", ("loss3/classifier", "label"),
                "loss3/loss3", loss_weight=1)
        for k in (1, 5):
            fields = {"include": TEST}
            if k != 1:
                fields["accuracy_param"] = {"top_k": k}
            net.add("loss3/top-%d" % k, "Accuracy",
                    ("loss3/classifier", "label"), "loss3/top-%d" % k, **fields)
    else:
        net.add("prob", "Softmax", "loss3/classifier", "prob")
    return net


# ---------------------------------------------------------------------------
# VGG-16 (configuration D)
# ---------------------------------------------------------------------------

VGG16_STAGES = [(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]


def vgg16(train, batch=10):
    net = Net("VGG_ILSVRC_16_layers")
    if train:
        data_layers(net, IMAGENET_TRAIN, IMAGENET_VAL, 64, 50, crop=224,
                    mean_value=(103.939, 116.779, 123.68))
    else:
        input_layer(net, (batch, 3, 224, 224))
    p = PARAM_WB if train else None
    x = "data"
    for s, (n, reps) in enumerate(VGG16_STAGES, 1):
        for r in range(1, reps + 1):
            name = "conv%d_%d" % (s, r)
            x = conv(net, name, x, n, 3, pad=1, wf=xavier(), bf=constant(0),
                     param=p)
            relu(net, "relu%d_%d" % (s, r), x)
        x = pool(net, "pool%d" % s, x, "MAX", 2, 2)
    fc(net, "fc6", x, 4096, wf=gaussian(0.005), bf=constant(0.1), param=p)
    relu(net, "relu6", "fc6")
    dropout(net, "drop6", "fc6", 0.5)
    fc(net, "fc7", "fc6", 4096, wf=gaussian(0.005), bf=constant(0.1), param=p)
    relu(net, "relu7", "fc7")
    dropout(net, "drop7", "fc7", 0.5)
    fc(net, "fc8", "fc7", 1000, wf=gaussian(0.01), bf=constant(0), param=p)
    softmax_head(net, "fc8", train,
                 accuracy=(("accuracy", 1), ("accuracy_top5", 5)))
    return net


# ---------------------------------------------------------------------------
# ResNet (bottleneck, He et al. 2015, original Caffe release naming)
# ---------------------------------------------------------------------------

RESNET_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def _block_suffixes(stage, count, depth):
    """res2a, res2b, ... for ResNet-50 and for stages 2/5 of every depth;
    res3a, res3b1, res3b2, ... where the deeper nets have many blocks."""
    if depth == 50 or stage in (2, 5):
        return [chr(ord("a") + i) for i in range(count)]
    return ["a"] + ["b%d" % i for i in range(1, count)]


def resnet(depth, train, batch=10):
    net = Net("ResNet-%d" % depth)
    if train:
        data_layers(net, IMAGENET_TRAIN, IMAGENET_VAL, 32, 50, crop=224,
                    mean_value=IMAGENET_MEAN_BGR)
    else:
        input_layer(net, (batch, 3, 224, 224))
    cp = [{"lr_mult": 1, "decay_mult": 1}] if train else None

    def conv_bn(name, bn, sc, bottom, n, k, stride=1, pad=0, relu_name=None):
        c = conv(net, name, bottom, n, k, stride=stride, pad=pad, wf=msra(),
                 bias_term=False, param=cp)
        batchnorm_scale(net, bn, sc, c, train)
        if relu_name:
            relu(net, relu_name, c)
        return c

    x = conv_bn("conv1", "bn_conv1", "scale_conv1", "data", 64, 7, 2, 3,
                "conv1_relu")
    x = pool(net, "pool1", x, "MAX", 3, 2)

    for stage, count in zip((2, 3, 4, 5), RESNET_BLOCKS[depth]):
        width = 64 * 2 ** (stage - 2)
        for i, suf in enumerate(_block_suffixes(stage, count, depth)):
            tag = "%d%s" % (stage, suf)
            stride = 2 if (i == 0 and stage > 2) else 1
            if i == 0:
                # Projection shortcut (the original release puts the stride
                # on the 1x1 convolutions).
                short = conv_bn("res%s_branch1" % tag, "bn%s_branch1" % tag,
                                "scale%s_branch1" % tag, x, width * 4, 1,
                                stride)
            else:
                short = x
            y = conv_bn("res%s_branch2a" % tag, "bn%s_branch2a" % tag,
                        "scale%s_branch2a" % tag, x, width, 1, stride, 0,
                        "res%s_branch2a_relu" % tag)
            y = conv_bn("res%s_branch2b" % tag, "bn%s_branch2b" % tag,
                        "scale%s_branch2b" % tag, y, width, 3, 1, 1,
                        "res%s_branch2b_relu" % tag)
            y = conv_bn("res%s_branch2c" % tag, "bn%s_branch2c" % tag,
                        "scale%s_branch2c" % tag, y, width * 4, 1)
            out = "res%s" % tag
            net.add(out, "Eltwise", (short, y), out,
                    eltwise_param={"operation": Enum("SUM")})
            relu(net, "res%s_relu" % tag, out)
            x = out

    x = pool(net, "pool5", x, "AVE", 7, 1)
    fc(net, "fc1000", x, 1000, wf=msra(), bf=constant(0),
       param=PARAM_WB if train else None)
    softmax_head(net, "fc1000", train,
                 accuracy=(("accuracy", 1), ("accuracy_top5", 5)))
    return net


# ---------------------------------------------------------------------------
# Deep plain chain (for depth-sweep benchmarks of per-layer overhead and
# memory planning)
# ---------------------------------------------------------------------------

def plain_chain(depth, channels=32, size=32, batch=16, bn=False,
                num_classes=10):
    """Input -> depth x [conv3x3(channels) (+BN+Scale) + ReLU in place] ->
    global average pool -> fc -> Softmax "prob". The first convolution maps
    3 input channels to `channels`; all others keep the width."""
    net = Net("PlainChain-%d" % depth)
    input_layer(net, (batch, 3, size, size))
    x = "data"
    for i in range(1, depth + 1):
        name = "conv%d" % i
        conv(net, name, x, channels, 3, pad=1, wf=msra(),
             bf=None if bn else constant(0), bias_term=not bn)
        if bn:
            batchnorm_scale(net, "bn%d" % i, "scale%d" % i, name, False)
        relu(net, "relu%d" % i, name)
        x = name
    pool(net, "pool", x, "AVE", global_pooling=True)
    fc(net, "fc", "pool", num_classes, wf=gaussian(0.01), bf=constant(0))
    net.add("prob", "Softmax", "fc", "prob")
    return net


# ---------------------------------------------------------------------------
# Solvers
# ---------------------------------------------------------------------------

def solver_text(comment, fields):
    out = []
    for line in comment.strip().splitlines():
        out.append("# " + line if line else "#")
    for k, v in fields:
        _emit(out, k, v, 0)
    return "\n".join(out) + "\n"


SOLVERS = {
    "lenet": ("LeNet on MNIST (Caffe's MNIST example hyperparameters).", [
        ("net", "models/lenet/train_val.prototxt"),
        ("test_iter", 100), ("test_interval", 500),
        ("base_lr", 0.01), ("momentum", 0.9), ("weight_decay", 0.0005),
        ("lr_policy", "inv"), ("gamma", 0.0001), ("power", 0.75),
        ("display", 100), ("max_iter", 10000),
        ("snapshot", 5000), ("snapshot_prefix", "models/lenet/lenet"),
        ("solver_mode", Enum("CPU")),
    ]),
    "cifar10_quick": ("CIFAR-10 quick (first 4000 iterations at lr 0.001; "
                      "the published recipe\nthen continues 1000 iterations "
                      "at lr 0.0001 from the snapshot).", [
        ("net", "models/cifar10_quick/train_val.prototxt"),
        ("test_iter", 100), ("test_interval", 500),
        ("base_lr", 0.001), ("momentum", 0.9), ("weight_decay", 0.004),
        ("lr_policy", "fixed"),
        ("display", 100), ("max_iter", 4000),
        ("snapshot", 4000),
        ("snapshot_prefix", "models/cifar10_quick/cifar10_quick"),
        ("solver_mode", Enum("CPU")),
    ]),
    "caffenet": ("CaffeNet (bvlc_reference_caffenet) ImageNet recipe.", [
        ("net", "models/caffenet/train_val.prototxt"),
        ("test_iter", 1000), ("test_interval", 1000),
        ("base_lr", 0.01), ("lr_policy", "step"), ("gamma", 0.1),
        ("stepsize", 100000), ("display", 20), ("max_iter", 450000),
        ("momentum", 0.9), ("weight_decay", 0.0005),
        ("snapshot", 10000),
        ("snapshot_prefix", "models/caffenet/caffenet_train"),
        ("solver_mode", Enum("CPU")),
    ]),
    "alexnet": ("AlexNet (bvlc_alexnet) ImageNet recipe.", [
        ("net", "models/alexnet/train_val.prototxt"),
        ("test_iter", 1000), ("test_interval", 1000),
        ("base_lr", 0.01), ("lr_policy", "step"), ("gamma", 0.1),
        ("stepsize", 100000), ("display", 20), ("max_iter", 450000),
        ("momentum", 0.9), ("weight_decay", 0.0005),
        ("snapshot", 10000),
        ("snapshot_prefix", "models/alexnet/caffe_alexnet_train"),
        ("solver_mode", Enum("CPU")),
    ]),
    "googlenet": ("GoogLeNet (bvlc_googlenet) ImageNet recipe.", [
        ("net", "models/googlenet/train_val.prototxt"),
        ("test_iter", 1000), ("test_interval", 4000),
        ("test_initialization", False),
        ("display", 40), ("average_loss", 40),
        ("base_lr", 0.01), ("lr_policy", "step"), ("stepsize", 320000),
        ("gamma", 0.96), ("max_iter", 10000000),
        ("momentum", 0.9), ("weight_decay", 0.0002),
        ("snapshot", 40000),
        ("snapshot_prefix", "models/googlenet/bvlc_googlenet"),
        ("solver_mode", Enum("CPU")),
    ]),
    "vgg16": ("VGG-16 (Simonyan & Zisserman 2014): batch 256 (64 x iter_size "
              "4),\nmomentum 0.9, weight decay 5e-4, lr 0.01 divided by 10 "
              "three times,\n~370K iterations (74 epochs).", [
        ("net", "models/vgg16/train_val.prototxt"),
        ("test_iter", 1000), ("test_interval", 5000),
        ("base_lr", 0.01), ("lr_policy", "multistep"), ("gamma", 0.1),
        ("stepvalue", [100000, 200000, 300000]),
        ("display", 20), ("max_iter", 370000), ("iter_size", 4),
        ("momentum", 0.9), ("weight_decay", 0.0005),
        ("snapshot", 10000),
        ("snapshot_prefix", "models/vgg16/vgg16_train"),
        ("solver_mode", Enum("CPU")),
    ]),
}


def resnet_solver(depth):
    name = "resnet%d" % depth
    return ("ResNet-%d (He et al. 2015): batch 256 (32 x iter_size 8), lr 0.1 "
            "divided by 10\nat plateaus, momentum 0.9, weight decay 1e-4, up "
            "to 600K iterations." % depth, [
                ("net", "models/%s/train_val.prototxt" % name),
                ("test_iter", 1000), ("test_interval", 10000),
                ("base_lr", 0.1), ("lr_policy", "multistep"), ("gamma", 0.1),
                ("stepvalue", [150000, 300000, 450000]),
                ("display", 20), ("max_iter", 600000), ("iter_size", 8),
                ("momentum", 0.9), ("weight_decay", 0.0001),
                ("snapshot", 10000),
                ("snapshot_prefix", "models/%s/%s_train" % (name, name)),
                ("solver_mode", Enum("CPU")),
            ])


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

HEADER = ("Generated by models/gen_models.py -- edit the generator, not this "
          "file.")

# name: (builder(train, batch), deploy batch)
MODELS = {
    "lenet": (lenet, 64),
    "cifar10_quick": (cifar10_quick, 64),
    "caffenet": (caffenet, 10),
    "alexnet": (alexnet, 10),
    "googlenet": (googlenet, 10),
    "vgg16": (vgg16, 10),
    "resnet50": (lambda t, b: resnet(50, t, b), 10),
    "resnet101": (lambda t, b: resnet(101, t, b), 10),
    "resnet152": (lambda t, b: resnet(152, t, b), 10),
}


# Every train_val net trains and tests with LeanCaffe's memory optimizer.
# (BVLC Caffe 1.0 does not know NetParameter field 200 and its text parser
# rejects the block: drop it to use these files there.)
MEM_PARAM = """mem_param {
  optimize_train: true
  optimize_test: true
}
"""


def with_mem_param(text):
    """Puts the mem_param block right after the net's name line."""
    lines = text.splitlines(True)
    for i, line in enumerate(lines):
        if line.startswith("name:"):
            return "".join(lines[:i + 1]) + MEM_PARAM + "".join(lines[i + 1:])
    return MEM_PARAM + text


def write_model(name, root):
    build, batch = MODELS[name]
    d = os.path.join(root, name)
    write(os.path.join(d, "train_val.prototxt"),
          with_mem_param(build(True, batch).text(HEADER)))
    write(os.path.join(d, "deploy.prototxt"),
          build(False, batch).text(HEADER))
    if name in SOLVERS:
        comment, fields = SOLVERS[name]
    else:
        comment, fields = resnet_solver(int(name[len("resnet"):]))
    write(os.path.join(d, "solver.prototxt"),
          solver_text(HEADER + "\n" + comment, fields))


def write_resnet_deep(root):
    """ResNet-101 and ResNet-152 (train_val, deploy, solver)."""
    for name in ("resnet101", "resnet152"):
        write_model(name, root)


def write_plain_chains(out_dir, depths, channels=32, size=32, batch=16,
                       bn=False):
    for d in depths:
        net = plain_chain(d, channels, size, batch, bn)
        write(os.path.join(out_dir, "deploy_d%d.prototxt" % d),
              net.text(HEADER + "\nplain chain: depth %d, %d channels, "
                       "%dx%d input, batch %d%s" %
                       (d, channels, size, size, batch,
                        ", BatchNorm+Scale" if bn else "")))


DEFAULT_PLAIN_DEPTHS = (8, 16, 32, 64, 128)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", nargs="*",
                    help="model names (%s), 'plain', or nothing for all"
                    % ", ".join(sorted(MODELS)))
    ap.add_argument("--root", default=HERE, help="models directory")
    ap.add_argument("--depths", type=int, nargs="+",
                    default=list(DEFAULT_PLAIN_DEPTHS))
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--bn", action="store_true",
                    help="plain chain with BatchNorm+Scale after each conv")
    ap.add_argument("--out", default=None,
                    help="output directory for the plain chain")
    args = ap.parse_args(argv)

    what = args.what or (sorted(MODELS) + ["plain"])
    for w in what:
        if w == "plain":
            out = args.out or os.path.join(args.root, "plain_chain")
            write_plain_chains(out, args.depths, args.channels, args.size,
                               args.batch, args.bn)
        elif w in MODELS:
            write_model(w, args.root)
        else:
            ap.error("unknown model %r" % w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
