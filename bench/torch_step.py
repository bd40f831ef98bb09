#!/usr/bin/python3
"""PyTorch reference timings for bench/run_bench.sh.

Builds the same architectures as models/<net>/deploy.prototxt in torch.nn
(CaffeNet, GoogLeNet without its auxiliary heads -- the deploy net has none
--, VGG-16 and ResNet-50 in the original Caffe layout), and times one CPU
training step: forward + cross-entropy loss + backward + SGD update, on a
random batch. One warm-up step, then --runs timed steps; prints the median.

    /usr/bin/python3 bench/torch_step.py --net resnet50 --batch 8

The last line of output is machine-readable:

    RESULT net=resnet50 batch=8 median_ms=1234.5 peak_rss_kb=567890 ...

Uses Debian's python3-torch (apt-get install python3-torch).
"""

import argparse
import os
import resource
import statistics
import sys
import time

# Thread settings must be in the environment before torch loads its
# OpenMP / BLAS runtimes.
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")
os.environ.setdefault("MKL_NUM_THREADS", "2")

try:
    import torch
    import torch.nn as nn
except ImportError:
    sys.stderr.write(
        "torch_step.py: PyTorch is not installed for %s.\n"
        "Install Debian's package:  apt-get install -y python3-torch\n"
        % sys.executable)
    sys.exit(3)


# ---------------------------------------------------------------- CaffeNet --

def caffenet(num_classes=1000):
    # Caffe rounds pooling output sizes up: ceil_mode=True throughout.
    # nn.LocalResponseNorm divides alpha by size exactly like Caffe's LRN.
    return nn.Sequential(
        nn.Conv2d(3, 96, 11, stride=4), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        nn.LocalResponseNorm(5, alpha=1e-4, beta=0.75, k=1.0),
        nn.Conv2d(96, 256, 5, padding=2, groups=2), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        nn.LocalResponseNorm(5, alpha=1e-4, beta=0.75, k=1.0),
        nn.Conv2d(256, 384, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(384, 384, 3, padding=1, groups=2), nn.ReLU(inplace=True),
        nn.Conv2d(384, 256, 3, padding=1, groups=2), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        nn.Flatten(),
        nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True), nn.Dropout(0.5),
        nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(0.5),
        nn.Linear(4096, num_classes),
    )


# --------------------------------------------------------------- GoogLeNet --

def conv_relu(cin, cout, k, stride=1, pad=0):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=pad),
                         nn.ReLU(inplace=True))


class Inception(nn.Module):
    def __init__(self, cin, n1, n3r, n3, n5r, n5, npp):
        super().__init__()
        self.b1 = conv_relu(cin, n1, 1)
        self.b3 = nn.Sequential(conv_relu(cin, n3r, 1),
                                conv_relu(n3r, n3, 3, pad=1))
        self.b5 = nn.Sequential(conv_relu(cin, n5r, 1),
                                conv_relu(n5r, n5, 5, pad=2))
        self.bp = nn.Sequential(nn.MaxPool2d(3, 1, padding=1, ceil_mode=True),
                                conv_relu(cin, npp, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], 1)


INCEPTION = [
    ("3a", 64, 96, 128, 16, 32, 32),
    ("3b", 128, 128, 192, 32, 96, 64),
    ("4a", 192, 96, 208, 16, 48, 64),
    ("4b", 160, 112, 224, 24, 64, 64),
    ("4c", 128, 128, 256, 24, 64, 64),
    ("4d", 112, 144, 288, 32, 64, 64),
    ("4e", 256, 160, 320, 32, 128, 128),
    ("5a", 256, 160, 320, 32, 128, 128),
    ("5b", 384, 192, 384, 48, 128, 128),
]


def googlenet(num_classes=1000):
    layers = [
        conv_relu(3, 64, 7, stride=2, pad=3),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        nn.LocalResponseNorm(5, alpha=1e-4, beta=0.75, k=1.0),
        conv_relu(64, 64, 1),
        conv_relu(64, 192, 3, pad=1),
        nn.LocalResponseNorm(5, alpha=1e-4, beta=0.75, k=1.0),
        nn.MaxPool2d(3, 2, ceil_mode=True),
    ]
    cin = 192
    for tag, n1, n3r, n3, n5r, n5, npp in INCEPTION:
        if tag in ("4a", "5a"):
            layers.append(nn.MaxPool2d(3, 2, ceil_mode=True))
        layers.append(Inception(cin, n1, n3r, n3, n5r, n5, npp))
        cin = n1 + n3 + n5 + npp
    layers += [nn.AvgPool2d(7, 1, ceil_mode=True), nn.Dropout(0.4),
               nn.Flatten(), nn.Linear(cin, num_classes)]
    return nn.Sequential(*layers)


# ------------------------------------------------------------------ VGG-16 --

def vgg16(num_classes=1000):
    layers, cin = [], 3
    for n, reps in [(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]:
        for _ in range(reps):
            layers += [nn.Conv2d(cin, n, 3, padding=1), nn.ReLU(inplace=True)]
            cin = n
        layers.append(nn.MaxPool2d(2, 2, ceil_mode=True))
    layers += [nn.Flatten(),
               nn.Linear(512 * 7 * 7, 4096), nn.ReLU(inplace=True),
               nn.Dropout(0.5),
               nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(0.5),
               nn.Linear(4096, num_classes)]
    return nn.Sequential(*layers)


# --------------------------------------------------------------- ResNet-50 --

def conv_bn(cin, cout, k, stride=1, pad=0):
    # Caffe: Convolution(bias_term: false) + BatchNorm + Scale(bias_term:
    # true); BatchNorm2d(affine=True) is the BatchNorm+Scale pair.
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=pad,
                                   bias=False),
                         nn.BatchNorm2d(cout, eps=1e-5))


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride, project):
        super().__init__()
        # As in the original Caffe release the stride sits on the first 1x1
        # convolution (and on the projection shortcut).
        self.branch2 = nn.Sequential(
            conv_bn(cin, width, 1, stride), nn.ReLU(inplace=True),
            conv_bn(width, width, 3, 1, 1), nn.ReLU(inplace=True),
            conv_bn(width, width * 4, 1))
        self.branch1 = conv_bn(cin, width * 4, 1, stride) if project else None
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        short = self.branch1(x) if self.branch1 is not None else x
        return self.relu(short + self.branch2(x))


def resnet(blocks=(3, 4, 6, 3), num_classes=1000):
    layers = [conv_bn(3, 64, 7, 2, 3), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, ceil_mode=True)]
    cin = 64
    for stage, count in enumerate(blocks):
        width = 64 * 2 ** stage
        for i in range(count):
            stride = 2 if (i == 0 and stage > 0) else 1
            layers.append(Bottleneck(cin, width, stride, i == 0))
            cin = width * 4
    layers += [nn.AvgPool2d(7, 1, ceil_mode=True), nn.Flatten(),
               nn.Linear(cin, num_classes)]
    return nn.Sequential(*layers)


NETS = {
    "caffenet": (caffenet, 227),
    "googlenet": (googlenet, 224),
    "vgg16": (vgg16, 224),
    "resnet50": (resnet, 224),
    "resnet101": (lambda: resnet((3, 4, 23, 3)), 224),
    "resnet152": (lambda: resnet((3, 8, 36, 3)), 224),
}


# ------------------------------------------------------------------ timing --

def peak_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux


def train_step(model, opt, loss_fn, x, y, update=True):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    if update:
        opt.step()
    return loss


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--net", required=True, choices=sorted(NETS))
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-update", action="store_true",
                    help="time forward + loss + backward only, without the "
                         "optimizer step (what `caffe time` measures)")
    ap.add_argument("--check", action="store_true",
                    help="only build the net, print its size and output "
                         "shape for one image, and exit")
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    torch.manual_seed(1701)
    build, size = NETS[args.net]
    model = build()
    nparams = sum(p.numel() for p in model.parameters())

    if args.check:
        model.eval()
        with torch.no_grad():
            out = model(torch.randn(1, 3, size, size))
        print("%s: %.2fM parameters, output %s" %
              (args.net, nparams / 1e6, tuple(out.shape)))
        return 0

    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                          weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(args.batch, 3, size, size)
    y = torch.randint(0, 1000, (args.batch,))

    for _ in range(args.warmup):
        train_step(model, opt, loss_fn, x, y, not args.no_update)
    times = []
    for i in range(args.runs):
        t0 = time.perf_counter()
        train_step(model, opt, loss_fn, x, y, not args.no_update)
        times.append((time.perf_counter() - t0) * 1000.0)
        print("run %d: %.1f ms" % (i + 1, times[-1]), flush=True)
    med = statistics.median(times)
    print("RESULT net=%s batch=%d median_ms=%.1f peak_rss_kb=%d "
          "threads=%d params=%d torch=%s" %
          (args.net, args.batch, med, peak_rss_kb(), torch.get_num_threads(),
           nparams, torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
