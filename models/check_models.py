#!/usr/bin/python3
"""Static checks for prototxt files, without building anything.

  * every field name, enum constant and value type is checked against
    src/caffe/proto/caffe.proto (NetParameter, or SolverParameter for files
    named *solver*.prototxt);
  * for nets, blob shapes are inferred layer by layer (Caffe's rules: ceil
    rounding for pooling, Concat along channels, Eltwise equal shapes...)
    for each phase, so that a wrong pad or a mismatched shortcut shows up.

    /usr/bin/python3 models/check_models.py models/*/*.prototxt

Standard library only.
"""

import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTO = os.path.join(ROOT, "src", "caffe", "proto", "caffe.proto")

SCALARS = {"int32", "int64", "uint32", "uint64", "float", "double", "bool",
           "string", "bytes"}


# ---------------------------------------------------------------- schema --

def load_schema(path):
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", text)
    toks = re.findall(r'"[^"]*"|[A-Za-z_][\w.]*|-?\d[\w.+-]*|[{}\[\]=;,]',
                      text)
    messages, enums = {}, {}
    stack = []   # (kind, name)
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in ("message", "enum"):
            name = toks[i + 1]
            full = ".".join([n for _, n in stack] + [name])
            stack.append((t, name))
            if t == "message":
                messages[full] = {}
            else:
                enums[full] = set()
            i += 3   # message NAME {
            continue
        if t == "}":
            stack.pop()
            i += 1
            continue
        if stack and stack[-1][0] == "enum":
            if t not in ("option",):
                full = ".".join(n for _, n in stack)
                enums[full].add(t)
            while toks[i] != ";":
                i += 1
            i += 1
            continue
        if t in ("optional", "repeated", "required"):
            ftype, fname = toks[i + 1], toks[i + 2]
            full = ".".join(n for _, n in stack)
            messages[full][fname] = (t, ftype)
            while toks[i] != ";":
                i += 1
            i += 1
            continue
        i += 1
    return messages, enums


def resolve(scope, name, messages, enums):
    parts = scope.split(".")
    for k in range(len(parts), -1, -1):
        cand = ".".join(parts[:k] + [name])
        if cand in messages:
            return "message", cand
        if cand in enums:
            return "enum", cand
    raise KeyError("cannot resolve %s in %s" % (name, scope))


# ------------------------------------------------------------ text format --

def tokenize(text):
    text = re.sub(r"#[^\n]*", "", text)
    return re.findall(r'"(?:[^"\\]|\\.)*"|[{}:]|[^\s{}:"]+', text)


def parse_msg(toks, pos, end_brace):
    """Returns (list of (key, value), pos); value is a list for messages."""
    items = []
    while pos < len(toks):
        t = toks[pos]
        if t == "}":
            if not end_brace:
                raise ValueError("unbalanced }")
            return items, pos + 1
        key = t
        pos += 1
        if toks[pos] == ":":
            pos += 1
            if toks[pos] == "{":
                sub, pos = parse_msg(toks, pos + 1, True)
                items.append((key, sub))
            else:
                items.append((key, toks[pos]))
                pos += 1
        elif toks[pos] == "{":
            sub, pos = parse_msg(toks, pos + 1, True)
            items.append((key, sub))
        else:
            raise ValueError("expected ':' or '{' after %s" % key)
    if end_brace:
        raise ValueError("missing }")
    return items, pos


def check_value(scope, items, messages, enums, where, errors):
    fields = messages[scope]
    seen = {}
    for key, value in items:
        if key not in fields:
            errors.append("%s: %s has no field %r" % (where, scope, key))
            continue
        label, ftype = fields[key]
        seen[key] = seen.get(key, 0) + 1
        if label != "repeated" and seen[key] > 1:
            errors.append("%s: non-repeated %s.%s set twice" %
                          (where, scope, key))
        if ftype in SCALARS:
            if isinstance(value, list):
                errors.append("%s: %s.%s is scalar" % (where, scope, key))
                continue
            if ftype in ("string", "bytes"):
                if not value.startswith('"'):
                    errors.append("%s: %s.%s needs a quoted string" %
                                  (where, scope, key))
            elif ftype == "bool":
                if value not in ("true", "false"):
                    errors.append("%s: %s.%s bad bool %s" %
                                  (where, scope, key, value))
            elif ftype in ("float", "double"):
                try:
                    float(value)
                except ValueError:
                    errors.append("%s: %s.%s bad float %s" %
                                  (where, scope, key, value))
            else:
                if not re.match(r"^-?\d+$", value) or (
                        ftype.startswith("u") and value.startswith("-")):
                    errors.append("%s: %s.%s bad %s %s" %
                                  (where, scope, key, ftype, value))
            continue
        kind, full = resolve(scope, ftype, messages, enums)
        if kind == "enum":
            if isinstance(value, list) or value not in enums[full]:
                errors.append("%s: %s.%s bad enum value %r" %
                              (where, scope, key, value))
        else:
            if not isinstance(value, list):
                errors.append("%s: %s.%s is a message" % (where, scope, key))
                continue
            check_value(full, value, messages, enums, where, errors)


# ---------------------------------------------------------------- helpers --

def get(items, key, default=None):
    for k, v in items:
        if k == key:
            return v
    return default


def get_all(items, key):
    return [v for k, v in items if k == key]


def unq(s):
    return s[1:-1] if s and s.startswith('"') else s


def num(s, default=None):
    if s is None:
        return default
    return float(s) if re.search(r"[.eE]", s) else int(s)


# ------------------------------------------------------------ shape pass --

def included(layer, phase):
    inc = get_all(layer, "include")
    exc = get_all(layer, "exclude")
    if inc:
        return any(get(r, "phase", phase) == phase for r in inc)
    if exc:
        return not any(get(r, "phase") == phase for r in exc)
    return True


def conv_out(size, k, s, p, d=1):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def infer(net, phase, where, errors, log=None):
    shapes = {}
    n_layers = 0
    for layer in get_all(net, "layer"):
        if not included(layer, phase):
            continue
        n_layers += 1
        name = unq(get(layer, "name"))
        typ = unq(get(layer, "type"))
        bottoms = [unq(b) for b in get_all(layer, "bottom")]
        tops = [unq(t) for t in get_all(layer, "top")]
        w = "%s [%s] %s" % (where, phase, name)
        for b in bottoms:
            if b not in shapes:
                errors.append("%s: unknown bottom %s" % (w, b))
                return
        bs = [shapes[b] for b in bottoms]
        out = []
        try:
            if typ == "Data":
                dp = get(layer, "data_param")
                tp = get(layer, "transform_param", [])
                batch = num(get(dp, "batch_size"))
                crop = num(get(tp, "crop_size"), 0)
                src = unq(get(dp, "source"))
                if "mnist" in src:
                    c, h = 1, 28
                elif "cifar" in src:
                    c, h = 3, 32
                else:
                    c, h = 3, 256
                if crop:
                    h = crop
                out = [(batch, c, h, h), (batch,)]
            elif typ == "Input":
                ip = get(layer, "input_param")
                for sh in get_all(ip, "shape"):
                    out.append(tuple(num(d) for d in get_all(sh, "dim")))
            elif typ == "Convolution":
                cp = get(layer, "convolution_param")
                n, c, h, wd = bs[0]
                k = num(get(cp, "kernel_size"))
                s = num(get(cp, "stride"), 1)
                p = num(get(cp, "pad"), 0)
                g = num(get(cp, "group"), 1)
                no = num(get(cp, "num_output"))
                if c % g or no % g:
                    errors.append("%s: group %d does not divide %d->%d" %
                                  (w, g, c, no))
                out = [(n, no, conv_out(h, k, s, p), conv_out(wd, k, s, p))]
            elif typ == "Pooling":
                pp = get(layer, "pooling_param")
                n, c, h, wd = bs[0]
                if get(pp, "global_pooling") == "true":
                    out = [(n, c, 1, 1)]
                else:
                    k = num(get(pp, "kernel_size"))
                    s = num(get(pp, "stride"), 1)
                    p = num(get(pp, "pad"), 0)

                    def po(x):
                        o = int(math.ceil(float(x + 2 * p - k) / s)) + 1
                        if p and (o - 1) * s >= x + p:
                            o -= 1
                        return o
                    out = [(n, c, po(h), po(wd))]
            elif typ in ("LRN", "ReLU", "Dropout", "BatchNorm", "Scale",
                         "Softmax"):
                out = [bs[0]]
            elif typ == "InnerProduct":
                ip = get(layer, "inner_product_param")
                out = [(bs[0][0], num(get(ip, "num_output")))]
            elif typ == "Flatten":
                n = bs[0][0]
                rest = 1
                for d in bs[0][1:]:
                    rest *= d
                out = [(n, rest)]
            elif typ == "Concat":
                ref = bs[0]
                for b in bs[1:]:
                    if b[:1] + b[2:] != ref[:1] + ref[2:]:
                        errors.append("%s: concat mismatch %s" % (w, bs))
                out = [(ref[0], sum(b[1] for b in bs)) + tuple(ref[2:])]
            elif typ == "Eltwise":
                for b in bs[1:]:
                    if b != bs[0]:
                        errors.append("%s: eltwise mismatch %s" % (w, bs))
                out = [bs[0]]
            elif typ == "SoftmaxWithLoss":
                if bs[0][0] != bs[1][0]:
                    errors.append("%s: label count mismatch" % w)
                out = [()]
            elif typ == "Accuracy":
                out = [()]
            else:
                errors.append("%s: layer type %s not allowed" % (w, typ))
                return
        except Exception as e:   # malformed parameters
            errors.append("%s: %s: %r" % (w, typ, e))
            return
        for sh in out:
            if any(d <= 0 for d in sh):
                errors.append("%s: non-positive shape %s" % (w, sh))
        for t, sh in zip(tops, out):
            if t in bottoms and shapes[t] != sh:
                errors.append("%s: in-place changes shape" % w)
            shapes[t] = sh
        if log is not None:
            log.append("%-40s %-16s %s" % (name, typ,
                                            " ".join(str(s) for s in out)))
    return shapes, n_layers


def check_file(path, messages, enums, verbose=False):
    errors = []
    text = open(path).read()
    try:
        items, _ = parse_msg(tokenize(text), 0, False)
    except Exception as e:
        return ["%s: parse error %s" % (path, e)], ""
    is_solver = "solver" in os.path.basename(path)
    scope = "SolverParameter" if is_solver else "NetParameter"
    check_value(scope, items, messages, enums, path, errors)
    summary = ""
    if not is_solver and not errors:
        phases = ["TRAIN", "TEST"]
        if not any(k == "include" for l in get_all(items, "layer")
                   for k, _ in l):
            phases = ["TEST"]
        parts = []
        for ph in phases:
            log = [] if verbose else None
            res = infer(items, ph, path, errors, log)
            if verbose and log:
                print("\n".join(log))
            if res:
                shapes, n = res
                parts.append("%s: %d layers" % (ph, n))
        summary = ", ".join(parts)
    return errors, summary


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"]
    messages, enums = load_schema(PROTO)
    bad = 0
    for p in paths:
        errs, summary = check_file(p, messages, enums, verbose)
        if errs:
            bad += 1
            for e in errs[:20]:
                print("ERROR " + e)
        else:
            print("ok    %s %s" % (p, summary))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
