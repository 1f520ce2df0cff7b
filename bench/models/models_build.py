"""The networks and irm's libraries of bench_models.py: torchvision models
(random weights, seed 0, eval mode) exported to ONNX opset 13, and irm's aot
builds of them, exported once into a cache folder keyed by a hash of the ONNX
bytes, the target, the build options and irm itself (its version, libirm's
bytes and runtime/'s headers), so a rerun loads what it built before.

The libraries are built with link-params = false: the weights go to a params
file beside the library instead of hex literals in the C source, which makes
cc take about a second instead of minutes per network (resnet18: 1.1 s against
76 s) and does not change the kernels. bench_ort.mjs hands the params file to
the library's set_params itself."""
import glob
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import time

NETWORKS = ("resnet18", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2_x0_5", "googlenet", "densenet121")

# label -> target; "c" is portable code (no -march), the others build for this CPU.
CONFIGS = {
    "c": "c",
    "native": "c -mcpu=native",
    "native-cblas": "c -mcpu=native -libs=cblas",
    "native-cpp": "c -mcpu=native",  # the cpp runtime: kernels split over threads (bench_threads.py)
}

# The runtime of each configuration (crt: serial code) and the aot options
# it takes (cpp: the packed interface, as TVM's rule for aot asks).
RUNTIMES = {"native-cpp": "cpp"}
EXECUTOR = {"interface-api": "c", "unpacked-api": True, "link-params": False}
EXECUTOR_CPP = {"link-params": False}
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def make_network(name, size):
    """(net, x): torchvision's name with seed-0 random weights in eval mode, and
    a seed-0 1x3xSxS input. The batch-norm statistics are those of one random
    batch of 4 (train-mode forward, cumulative average): with torchvision's
    initialization alone, activations shrink layer after layer and googlenet's
    logits equal its fc bias to float precision whatever the input, which
    would make the logits' comparison with PyTorch prove nothing."""
    import torch
    import torchvision
    torch.set_num_threads(1)
    torch.manual_seed(0)
    kwargs = {"init_weights": True} if name == "googlenet" else {}  # no FutureWarning
    net = getattr(torchvision.models, name)(weights=None, **kwargs)
    for m in net.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    net.train()
    with torch.no_grad():
        net(torch.randn(4, 3, size, size))
    net.eval()
    x = torch.randn(1, 3, size, size)
    return net, x


def export_onnx(net, x):
    """The ONNX bytes of net at x (opset 13, input named "input")."""
    import torch
    buf = io.BytesIO()
    torch.onnx.export(net, x, buf, opset_version=13, input_names=["input"], output_names=["output"])
    return buf.getvalue()


def _libirm_path():
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "libirm.so" in os.path.basename(path):
                return path
    return None


_IRM_ID = None


def irm_identity():
    """A hash of what makes irm's code for a network: its version, libirm's
    bytes and runtime/'s headers and kernels (compiled into every library)."""
    global _IRM_ID
    if _IRM_ID is None:
        import irm
        h = hashlib.sha256(irm.__version__.encode())
        lib = _libirm_path()
        headers = glob.glob(os.path.join(ROOT, "runtime", "include", "*.h")) + \
            glob.glob(os.path.join(ROOT, "runtime", "kernels", "*.h"))
        paths = ([lib] if lib else []) + sorted(headers)
        for p in paths:
            with open(p, "rb") as f:
                h.update(f.read())
        _IRM_ID = h.hexdigest()
    return _IRM_ID


def cache_key(onnx_bytes, target, profiled, runtime="crt"):
    h = hashlib.sha256(onnx_bytes)
    h.update(json.dumps([target, EXECUTOR if runtime == "crt" else EXECUTOR_CPP, profiled, irm_identity(), runtime],
                        sort_keys=True).encode())
    if profiled:
        with open(os.path.join(HERE, "kernel_profile.c"), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:20]


def _profiling_cc(folder):
    """A cc for export_library that adds the kernel hooks and
    kernel_profile.c to its command, so the profiled library is compiled
    with exactly the flags export_library picks for the target."""
    os.makedirs(folder, exist_ok=True)
    cc = os.path.join(folder, "cc")
    real = shutil.which("cc")
    # export_library compiles units with -c, then links them with -shared:
    # the hooks' definitions (kernel_profile.c) go in with the link only
    with open(cc, "w") as f:
        f.write('#!/bin/sh\ncase " $* " in *" -shared "*) exec %s "$@" -DIRM_CRT_KERNEL_HOOKS %s;; esac\n'
                'exec %s "$@" -DIRM_CRT_KERNEL_HOOKS\n'
                % (real, os.path.join(HERE, "kernel_profile.c"), real))
    os.chmod(cc, os.stat(cc).st_mode | stat.S_IXUSR)
    return folder


def pool_shim(cache):
    """The shared object of pool_shim.c with runtime/threadpool.c (the pool
    and workspace bench_ort.mjs gives cpp libraries), compiled once."""
    out = os.path.join(cache, "pool_shim.so")
    srcs = [os.path.join(HERE, "pool_shim.c"), os.path.join(ROOT, "runtime", "threadpool.c")]
    if not os.path.exists(out) or any(os.path.getmtime(s) > os.path.getmtime(out) for s in srcs):
        subprocess.run(["cc", "-std=c11", "-O2", "-shared", "-fPIC", "-I", os.path.join(ROOT, "runtime", "include"),
                        "-o", out + ".tmp"] + srcs + ["-lpthread"], check=True)
        os.replace(out + ".tmp", out)
    return out


def write_ort_inputs(cache, name, xs, ref, onnx_bytes):
    """(input, reference, onnx) paths in cache of what bench_ort.mjs reads
    for network name: the input and PyTorch's logits as raw float32, and
    the ONNX file."""
    ins = os.path.join(cache, "input-%s.f32" % name)
    refp = os.path.join(cache, "reference-%s.f32" % name)
    onnx_path = os.path.join(cache, "%s.onnx" % name)
    xs.astype("float32").tofile(ins)
    ref.astype("float32").tofile(refp)
    with open(onnx_path, "wb") as f:
        f.write(onnx_bytes)
    return ins, refp, onnx_path


def build_library(onnx_bytes, target, cache, log, profiled=False, runtime="crt"):
    """The folder of irm's library of the ONNX model for target and runtime
    (crt: the c interface; cpp: packed, threads), built and exported
    unless cached: default.so, default.params and info.json (target as
    built, seconds to build and export, metadata)."""
    folder = os.path.join(cache, "lib-" + cache_key(onnx_bytes, target, profiled, runtime))
    info_path = os.path.join(folder, "info.json")
    if os.path.exists(info_path):
        with open(info_path) as f:
            return folder, json.load(f)
    import onnx
    import irm
    from irm.frontend import from_onnx
    tmp = folder + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    t0 = time.perf_counter()
    mod, params = from_onnx(onnx.load_from_string(onnx_bytes))
    executor = irm.Executor("aot", EXECUTOR if runtime == "crt" else EXECUTOR_CPP)
    result = irm.build(mod, target, executor=executor, runtime=runtime, params=params)
    t1 = time.perf_counter()
    path_before, cache_before = os.environ.get("PATH", ""), os.environ.get("IRM_CACHE")
    if profiled:
        # absolute: export_library runs cc after a cd
        wrapper = _profiling_cc(os.path.abspath(os.path.join(cache, "profiling-cc")))
        os.environ["PATH"] = wrapper + os.pathsep + path_before
        # the wrapper reports the real cc's identity: the build cache would
        # hand back the unprofiled objects
        os.environ["IRM_CACHE"] = "0"
    try:
        result.export_library(os.path.join(tmp, "default.so"))
    finally:
        os.environ["PATH"] = path_before
        if cache_before is None:
            os.environ.pop("IRM_CACHE", None)
        else:
            os.environ["IRM_CACHE"] = cache_before
    t2 = time.perf_counter()
    info = {"target": str(result.module.get_attr("target")), "build_s": t1 - t0, "export_s": t2 - t1,
            "profiled": profiled}
    if profiled:
        info["kernels"] = kernel_convs(result.module)
    with open(os.path.join(tmp, "info.json"), "w") as f:
        json.dump(info, f)
    shutil.rmtree(folder, ignore_errors=True)
    os.rename(tmp, folder)
    log("# built %s for '%s' in %.1f s (+ %.1f s cc)" % (os.path.basename(folder), target, t1 - t0, t2 - t1))
    return folder, info


def _calls_post_order(body):
    """main's calls of Primitive functions in the order the aot code
    generator runs them (post-order, each once)."""
    from irm import ir
    seen, order, stack = set(), [], [(body, False)]
    while stack:
        e, done = stack.pop()
        key = e.handle.value if hasattr(e.handle, "value") else e.handle
        if done:
            if isinstance(e, ir.Call) and isinstance(e.op, ir.Function):
                order.append(e)
            continue
        if key in seen:
            continue
        seen.add(key)
        stack.append((e, True))
        kids = []
        if isinstance(e, ir.Call):
            kids = list(e.args)
        elif isinstance(e, ir.Tuple):
            kids = list(e.fields)
        elif isinstance(e, ir.TupleGetItem):
            kids = [e.tuple_value]
        for k in reversed(kids):
            stack.append((k, False))
    return order


def _inner_calls(fn):
    from irm import ir
    out = []

    def visit(e):
        if isinstance(e, ir.Call):
            for a in e.args:
                visit(a)
            out.append(e)
        elif isinstance(e, ir.Tuple):
            for f in e.fields:
                visit(f)
        elif isinstance(e, ir.TupleGetItem):
            visit(e.tuple_value)
    visit(fn.body)
    return out


def conv_signature(out_shape, weight_shape, layout="NCHW"):
    """(flops, out_h, out_w, out_channels) of a conv: 2 multiply-adds per
    weight per output pixel. The layouts irm or ORT may use: NCHW, NCHW[x]c
    (spatial dims at 2, 3), NHWC."""
    n = out_shape[0]
    if layout == "NHWC":
        h, w, c = out_shape[1], out_shape[2], out_shape[3]
    else:
        h, w = out_shape[2], out_shape[3]
        c = out_shape[1] * (out_shape[4] if len(out_shape) == 5 else 1)
    macs = n * h * w
    for d in weight_shape:
        macs *= d
    return (2 * macs, h, w, c)


BLOCKED_CONVS = ("nn.contrib_conv2d_NCHWc", "nn.contrib_conv2d_winograd_without_weight_transform")


def blocked_conv_signature(call, attrs):
    """conv_signature of AlterOpLayout's blocked convs, in the logical
    channels (the ONNX Conv's FLOPs): the output channels are `channels`,
    the input ones `in_channels` or the data's blocks; a Winograd conv is a
    3x3 one."""
    d, w = list(call.args[0].checked_type.shape), list(call.args[1].checked_type.shape)
    y = list(call.checked_type.shape)
    oc, groups = int(attrs["channels"]), int(attrs.get("groups", 1))
    ic = int(attrs.get("in_channels", 0)) or d[1] * d[4]
    kh, kw = (3, 3) if "winograd" in call.op.name else (w[2], w[3])
    return (2 * y[0] * y[2] * y[3] * oc * (ic // groups) * kh * kw, y[2], y[3], oc)


def kernel_convs(module):
    """Per step of the built module's entry point: [ops, conv signature or
    None], the ops as the kernel's symbol names them."""
    from irm import ir
    steps = []
    for call in _calls_post_order(module["main"].body):
        ops, sig = [], None
        for inner in _inner_calls(call.op):
            if not isinstance(inner.op, ir.Op):
                continue
            ops.append(inner.op.name)
            if sig is not None:
                continue
            attrs = dict(inner.attrs) if inner.attrs is not None else {}
            if inner.op.name == "nn.conv2d":
                sig = conv_signature(list(inner.checked_type.shape), list(inner.args[1].checked_type.shape),
                                     attrs.get("out_layout") or attrs.get("data_layout") or "NCHW")
            elif inner.op.name in BLOCKED_CONVS:
                sig = blocked_conv_signature(inner, attrs)
        steps.append([ops, list(sig) if sig else None])
    return steps


def onnx_convs(onnx_bytes):
    """The Conv nodes of the model in graph order: [name, flops, out_h,
    out_w, out_c, description] from ONNX shape inference."""
    import onnx
    from onnx import shape_inference
    model = shape_inference.infer_shapes(onnx.load_from_string(onnx_bytes))
    g = model.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    for init in g.initializer:
        shapes[init.name] = list(init.dims)
    convs = []
    for node in g.node:
        if node.op_type != "Conv":
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        w, x, y = shapes[node.input[1]], shapes[node.input[0]], shapes[node.output[0]]
        flops, h, wd, c = conv_signature(y, w)
        desc = "%dx%d %d->%d s%d%s %dx%d" % (w[2], w[3], x[1], y[1], attrs.get("strides", [1])[0],
                                             " g%d" % attrs["group"] if attrs.get("group", 1) > 1 else "", h, wd)
        convs.append([node.name, flops, h, wd, c, desc])
    return convs
