#!/usr/bin/env python3
"""The irm program with good and bad input: output, messages and exit
status (0 success, 1 failure, 2 usage error) of every command and flag.

usage: check_cli.py IRM_PROGRAM [FAILING_PASS_PLUGIN]
(the plugin, examples/plugins/failing_pass_plugin.c, drives the reproducer
round trip through a pass that fails; without it those cases are skipped)."""
import json
import subprocess

from cli_harness import ENV, FAILURES, IRM, PLUGIN, TMP, finish, run, tmp

DEFAULT = "Sequential(InferType,SimplifyExpr,FoldConstant,FuseOps)"

# ---- the main job, help, version -------------------------------------------------
o, _ = run([], 0, out=["configuration", "module mod_name", "pipeline         " + DEFAULT, "passes run",
                       "    FuseOps: ", "module after the pipeline", "elided", "def @main"])
run(["opt", "--summary", "--pass-config", "FuseOps.max_depth=2", "--no-verify-each"], 0,
    out=["  config           FuseOps.max_depth = 2, pass.verify_each = false", "passes run"])
run(["--help"], 0, out=["usage: irm", "list", "target", "opt", "Exit status"])
run(["-h"], 0, out=["usage: irm"])
run(["--version"], 0, out=["irm 0."])
run(["--version", "extra"], 2, err=["unexpected argument 'extra'"])
for cmd in ["list", "target", "opt", "build", "run"]:
    run([cmd, "--help"], 0, out=["usage: irm " + cmd])
# build and run: tests/tools/check_cli_build.py.

# ---- usage errors: commands and flags ---------------------------------------------
run(["lst"], 2, err=["irm: unknown command 'lst' (did you mean 'list'?)", "(irm --help for usage)"])
run(["frobnicate"], 2, err=["unknown command 'frobnicate'"], not_err=["did you mean"])
run(["--verison"], 2, err=["unknown flag '--verison' (did you mean '--version'?)"])
run(["--opt-level", "3"], 2, err=["flags go after the command"])
run(["list", "--jsn", "targets"], 2, err=["irm list: unknown flag '--jsn' (did you mean '--json'?)"])
run(["opt", "--time-pases"], 2, err=["unknown flag '--time-pases' (did you mean '--time-passes'?)"])
run(["opt", "--time-passes=yes"], 2, err=["flag '--time-passes=yes' takes no value"])
run(["opt", "--opt-level"], 2, err=["flag '--opt-level' needs a value"])
run(["opt", "-x"], 2, err=["unknown flag '-x'"])
run(["list"], 2, err=["say what to list"])
run(["list", "targets", "extra"], 2, err=["unexpected argument 'extra'"])
run(["list", "exeutors"], 2, err=["cannot list 'exeutors' (did you mean 'executors'?)"])
run(["target"], 2, err=["give the target text"])
run(["target", "llvm", "-mcpu=x"], 2, err=["unknown flag '-m'"])
run(["target", "llvm", "extra"], 2, err=["unexpected argument 'extra'"])
run(["opt", "cnn", "mlp"], 2, err=["unexpected argument 'mlp'"])

# Non-UTF-8 and very long arguments: quoted safely (\xNN) and cut.
run([b"\xff\xfeab"], 2, err=["unknown command '\\xFF\\xFEab'"])
run(["opt", b"\xff\xfe"], 1, err=["MODEL '\\xFF\\xFE' is no file and no example model"])
run(["target", b"ll\xffvm"], 1, err=["not valid UTF-8"])
long = "A" * 100000
_, e = run([long], 2, err=["unknown command 'AAAA", "...'"], name="a 100000-byte command")
assert len(e) < 1000, len(e)
_, e = run(["opt", "--passes", long], 2, err=["--passes", "..."], name="a 100000-byte pipeline")
if len(e) > 2000:
    FAILURES.append(f"a 100000-byte pipeline: a message of {len(e)} bytes")
run(["opt", "--" + long], 2, err=["unknown flag '--AAAA", "...'"], name="a 100000-byte flag")

# ---- irm list ---------------------------------------------------------------------------
run(["list", "globals"], 0, out=["ffi.ListGlobalFuncNames\n", "transform.ParsePipeline\n"])
run(["list", "targets"], 0, out=["llvm\n", "  mcpu: str"])
run(["list", "tags"], 0, out=["apple/m1-gpu: metal"])
run(["list", "executors"], 0, out=["aot\n", "  interface-api: str = \"packed\"  -- "])
run(["list", "runtimes"], 0, out=["crt\n"])
run(["list", "passes"], 0, out=["FoldConstant (opt_level 2)", "FuseOps (opt_level 0)", "  max_depth: int"])
run(["list", "configs"], 0, out=["pass.reproducer: str", "pass.verify_each: bool = true",
                                 "relay.FuseOps.max_depth: alias of FuseOps.max_depth",
                                 "(migrates to module attribute 'usmp.enable')"])
run(["list", "module-attrs"], 0, out=["target: target|array<target> (pass-invariant: no pass may change it)\n",
                                       "params: map\n", "usmp.enable: bool\n"])
run(["list", "plugins"], 0)
run(["list", "ops"], 0, out=["nn.conv2d (2 inputs)", "cast (1 input)", "  dtype: str (required)"])
for what in ["globals", "targets", "tags", "executors", "runtimes", "passes", "configs", "module-attrs",
             "plugins", "ops"]:
    o, _ = run(["list", "--json", what], 0, name=f"list --json {what}")
    try:
        value = json.loads(o)
    except ValueError as exc:
        FAILURES.append(f"list --json {what}: not JSON ({exc}): {o[:300]}")
        continue
    if what == "executors" and value["aot"]["options"]["interface-api"]["default"] != "packed":
        FAILURES.append(f"list --json executors: {value['aot']}")
    if what == "passes" and value["FoldConstant"]["opt_level"] != 2:
        FAILURES.append(f"list --json passes: {value['FoldConstant']}")

# ---- irm target ---------------------------------------------------------------------------
run(["target", "llvm -mcpu=skylake"], 0, out=["llvm -keys=cpu -mcpu=skylake\n"], not_out=["executor"])
o, e = run(["target", "c -executor=aot -runtime=c -system-lib"], 0,
           out=["c -keys=cpu\n", 'executor: {"kind": "aot"', 'runtime: {"kind": "crt", "system-lib": true, "num-threads": 1}'],
           err=["DeprecationWarning: target option '-executor=aot' is deprecated"])
o, _ = run(["target", "--json", "llvm -mcpu=skylake", "--host", "llvm"], 0)
value = json.loads(o)
if value["target"]["kind"] != "llvm" or value["target"]["mcpu"] != "skylake" or value["executor"] is not None:
    FAILURES.append(f"target --json: {value}")
run(["target", "lvm"], 1, err=["irm: target: ValueError:", "unknown target kind 'lvm' (did you mean 'llvm'?)"])
run(["target", "llvm -mcpu"], 1, err=["irm: target: "])

# ---- irm opt ---------------------------------------------------------------------------------
o, _ = run(["opt"], 0, out=["def @main", "Primitive = true", "<elided"], not_out=["configuration"])
run(["opt", "mlp", "--passes", "InferType"], 0, out=['mod_name = "mlp"', ": Tensor[(1, 10), float32]"])
run(["opt", "--print-all-constants", "--passes", "Sequential()"], 0, not_out=["<elided"])
run(["opt", "--elide-constants", "0", "--passes", "Sequential()"], 0, not_out=["<elided"])
o, _ = run(["opt", "--elide-constants", "100000", "--passes", "Sequential()"], 0, not_out=["<elided"])
run(["opt", "--elide-constants", "-1"], 2, err=["--elide-constants: expected an integer from 0"])
run(["opt", "--opt-level", "x"], 2, err=["--opt-level: expected an integer from 0 to 1000000, got 'x'"])
run(["opt", "--opt-level", "1", "--time-passes"], 0, err=["  InferType: "], not_err=["FoldConstant: "])
run(["opt", "--time-passes"], 0, err=["sequential: ", "  FuseOps: "])
run(["opt", "--passes", "Sequential(InferTyp)"], 2, err=["--passes:", "did you mean 'InferType'?"])
run(["opt", "--disable-pass", "FuseOps", "--time-passes"], 0, err=["  FoldConstant: "], not_err=["FuseOps"])
run(["opt", "--opt-level", "0", "--required-pass", "FoldConstant", "--time-passes"], 0,
    err=["  FoldConstant: "])
run(["opt", "--pass-config", "FuseOps.max_depth=1"], 0, out=["Primitive = true"])
run(["opt", "--pass-config", "relay.FuseOps.max_depth=2"], 0)
run(["opt", "--pass-config", "FuseOps.max_dept=2"], 2,
    err=["no config option 'FuseOps.max_dept' (did you mean 'FuseOps.max_depth'?)"])
run(["opt", "--pass-config", "FuseOps.max_depth=two"], 2, err=["expected int, got 'two'"])
run(["opt", "--pass-config", "FuseOps.max_depth"], 2, err=["expected KEY=VALUE"])
run(["opt", "--pass-config", "FuseOps.max_depth=0"], 1, err=["irm: opt: "])
run(["opt", "--pass-config", "tir.disable_vectorize=true", "--pass-config", "usmp.algorithm=hill_climb"], 0)
run(["opt", "--print-ir-before", "FuseOps", "--print-ir-after", "all"], 0,
    err=["; IR before pass 'FuseOps'", "; IR after pass 'InferType'", "; IR after pass 'sequential'"],
    not_err=["; IR before pass 'InferType'"])
run(["opt", "--print-ir-after", "FuseOp"], 0,
    err=["warning: --print-ir-after 'FuseOp': no registered pass has this name (did you mean 'FuseOps'?)"])
run(["opt", "--disable-pass", "FoldConstnt"], 0,
    err=["warning: --disable-pass 'FoldConstnt': no registered pass has this name (did you mean 'FoldConstant'?)"])
run(["opt", "--required-pass", "SimplifyExp"], 0,
    err=["warning: --required-pass 'SimplifyExp': no registered pass has this name (did you mean 'SimplifyExpr'?)"])
run(["build", "--disable-pass", "all", "-o", tmp("build-disable-all")], 0,
    err=["warning: --disable-pass 'all': no registered pass has this name"])
run(["opt", "--disable-pass", "FuseOps"], 0, not_err=["warning"])
run(["opt", "--bisect-limit", "2", "--time-passes"], 0, err=["bisect: not running pass #3 'SimplifyExpr' (limit 2)"])
run(["opt", "--bisect-limit", "x"], 2, err=["--bisect-limit: expected an integer"])
run(["opt", "--verify-each", "--no-verify-each"], 0)
run(["opt", "--no-verify-each", "--verify-each"], 0)
run(["opt", "no/such/model.irm"], 1, err=["cannot read 'no/such/model.irm'"])
run(["opt", "cnnn"], 1, err=["no example model", "(did you mean 'cnn'?)"])
run(["opt", "--load-plugin", tmp("missing.so")], 1, err=["PluginError"])

# Models from files: text, and JSON (ffi.ToJSON, as --reproducer writes it too).
with open(tmp("model.irm"), "w") as f:
    f.write(subprocess.run([IRM, "opt", "mlp", "--passes", "Sequential()", "--print-all-constants"],
                           stdout=subprocess.PIPE, env=ENV, check=True).stdout.decode())
run(["opt", tmp("model.irm"), "--passes", "InferType", "-o", tmp("out.irm")], 0)
p = subprocess.run([IRM, "opt", "-", "--passes", "InferType"], stdin=open(tmp("model.irm")), stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, env=ENV)
if p.returncode != 0 or b"Tensor[(1, 10), float32]" not in p.stdout:
    FAILURES.append(f"opt - (stdin): status {p.returncode}: {p.stderr[:500]!r}")
run(["opt", TMP], 1, err=["cannot read", "Is a directory"])
if "Tensor[(1, 10), float32]" not in open(tmp("out.irm")).read():
    FAILURES.append("opt -o: the file lacks the typed module")
with open(tmp("bad.irm"), "w") as f:
    f.write("def @main(%x: Tensor[(2), float32]) { nn.relu(%x, }\n")
run(["opt", tmp("bad.irm")], 1, err=["bad.irm: ValueError: line 1, column"])
with open(tmp("notmodule.json"), "w") as f:
    f.write('{"irm_json": 1, "root": 5, "nodes": []}')
run(["opt", tmp("notmodule.json")], 1, err=["not an ir.IRModule"])
run(["opt", "-o", tmp("no/dir/out.irm")], 1, err=["cannot write"])

# Output that cannot be written: exit status 1.
with open("/dev/full", "w") as full:
    run(["opt"], 1, stdout=full, err=["cannot write the output"], name="opt >/dev/full")
    run(["list", "globals"], 1, stdout=full, err=["cannot write the output"], name="list >/dev/full")
    run([], 1, stdout=full, err=["cannot write the output"], name="(no arguments) >/dev/full")
run(["opt", "-o", "/dev/full"], 1, err=["cannot write the output"])
run(["target", "apple/m1-gpu"], 0, out=["metal -keys=metal,gpu"])

# ---- the reproducer round trip, through a plugin pass that fails -------------------------------
if PLUGIN:
    repro = tmp("repro.json")
    pipeline = "Sequential(InferType,SimplifyExpr,FailingPass,FuseOps)"
    _, e = run(["opt", "mlp", "--load-plugin", PLUGIN, "--passes", pipeline, "--reproducer", repro,
                "--pass-config", "FuseOps.max_depth=3", "--opt-level", "3", "--time-passes"], 1,
               err=["irm: opt: RuntimeError: in pass 'sequential': in pass 'FailingPass': FailingPass always fails",
                    f"reproducer written to '{repro}'", "  FailingPass: ", ") failed\n"])
    # The timing report closes the failed pass: nothing is nested under it.
    doc = json.load(open(repro))
    if "irm_reproducer" not in json.dumps(doc):
        FAILURES.append("the reproducer lacks its format key")
    run(["opt", "--run-reproducer", repro, "--time-passes"], 1,
        err=["reproducing the failure of pass 'FailingPass'",
             "irm: opt: RuntimeError: in pass 'sequential': in pass 'FailingPass': FailingPass always fails",
             "  FailingPass: "], not_err=["InferType: "])
    # The plugin is in the file: IRM_PLUGIN_PATH is not needed.
    run(["opt", "--run-reproducer", repro, "cnn"], 2, err=["--run-reproducer takes the model"])
    # The module in it is ffi.ToJSON text: a model file of its own.
    nodes = doc["nodes"]
    module_json = [n["data"] for n in nodes if n.get("type") == "ffi.String" and n["data"].startswith('{"irm_json"')]
    with open(tmp("model.json"), "w") as f:
        f.write(module_json[0])
    run(["opt", tmp("model.json"), "--passes", "FuseOps"], 0, out=['mod_name = "mlp"', "Primitive = true"])
    # A run that does not fail leaves an existing file as it was.
    with open(tmp("keep.json"), "w") as f:
        f.write("keep")
    run(["opt", "--reproducer", tmp("keep.json")], 0)
    if open(tmp("keep.json")).read() != "keep":
        FAILURES.append("--reproducer changed the file of a run that did not fail")
    run(["opt", "--run-reproducer", tmp("model.irm")], 1, err=["reproducer"])
    # IRM_PLUGIN_PATH loads plugins for every command.
    env = dict(ENV, IRM_PLUGIN_PATH=PLUGIN)
    run(["list", "passes"], 0, out=["FailingPass (opt_level 0)"], env=env)
    run(["list", "plugins"], 0, out=["failing-pass 1.0.0"], env=env)
    run(["list", "--load-plugin", PLUGIN, "plugins"], 0, out=["failing-pass 1.0.0"])
    run(["opt", "--passes", "FailingPass"], 1, err=["FailingPass always fails"], not_err=["reproducer written"], env=env)

finish("irm program")
