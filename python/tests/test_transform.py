"""Passes written in Python inside C pipelines, PassContext, instruments."""
import pytest

import irm
from irm import transform


def test_python_pass_in_a_c_sequential_reads_the_executor():
    seen = []

    @irm.module_pass(opt_level=1, name="ReadExecutor")
    def read_executor(mod, ctx):
        executor = mod.get_attr("executor")
        seen.append((executor.name, executor["unpacked-api"], ctx.opt_level))
        return mod

    mod = irm.IRModule().with_attr("executor", irm.Executor({"kind": "aot", "unpacked-api": True}))
    pipeline = irm.Sequential([transform.Pass.get("MigratePassConfig"), read_executor])
    assert str(pipeline) == "Sequential(MigratePassConfig,ReadExecutor)"
    with irm.PassContext(opt_level=3):
        out = pipeline(mod)
    assert seen == [("aot", True, 3)] and out == mod


@pytest.fixture(scope="module")
def note_key():
    # A pass may change only attributes that are not pass-invariant (the
    # executor, runtime and mod_name are invariant).
    if "test_note" not in irm.IRModule.list_attr_keys():
        irm.IRModule.register_attr_key("test_note", "str")
    return "test_note"


def test_python_pass_result_feeds_the_next_pass(note_key):
    @irm.module_pass
    def SetNote(mod, ctx):
        return mod.with_attr(note_key, "from python")

    @irm.module_pass
    def CheckNote(mod, ctx):
        assert mod.get_attr(note_key) == "from python"
        return mod.with_attr(note_key, "checked")

    out = irm.Sequential([SetNote, CheckNote])(irm.IRModule())
    assert out.get_attr(note_key) == "checked"


def test_pass_decorator_on_a_class(note_key):
    @irm.module_pass(opt_level=0)
    class AddName:
        def __init__(self, name):
            self.name = name

        def transform_module(self, mod, ctx):
            return mod.with_attr(note_key, self.name)

    made = AddName("net")
    assert made.info.name == "AddName"
    assert made(irm.IRModule()).get_attr(note_key) == "net"


def test_function_pass_is_a_pass():
    @irm.function_pass(opt_level=2, required=["MigratePassConfig"])
    def Identity(func, mod, ctx):
        return func

    info = Identity.info
    assert (info.name, info.opt_level, info.required) == ("Identity", 2, ["MigratePassConfig"])
    assert Identity(irm.IRModule()).function_names == []


def test_pass_context_settings_and_scope():
    outer = irm.PassContext.current()
    with irm.PassContext(opt_level=3, required_pass=["A"], disabled_pass=["B"],
                         config={"FuseOps.max_depth": 4}) as ctx:
        current = irm.PassContext.current()
        assert current.same_as(ctx)
        assert (ctx.opt_level, ctx.required_pass, ctx.disabled_pass) == (3, ["A"], ["B"])
        assert ctx.config == {"FuseOps.max_depth": 4}
        assert irm.get_config(irm.IRModule(), "FuseOps.max_depth") == 4
    assert irm.PassContext.current().same_as(outer)
    assert irm.get_config(irm.IRModule(), "FuseOps.max_depth") == 256


def test_pass_context_rejects_unknown_and_mistyped_configs():
    with pytest.raises(AttributeError, match="did you mean 'FuseOps.max_depth'"):
        irm.PassContext(config={"FuseOps.max_dept": 4})
    with pytest.raises(TypeError, match="expected int"):
        irm.PassContext(config={"FuseOps.max_depth": "deep"})
    configs = irm.PassContext.list_configs()
    assert configs["FuseOps.max_depth"]["type"] == "int"


def test_disabled_pass_is_skipped():
    ran = []

    @irm.module_pass
    def Skipped(mod, ctx):
        ran.append(1)
        return mod

    with irm.PassContext(disabled_pass=["Skipped"]):
        irm.Sequential([Skipped])(irm.IRModule())
    assert ran == []


def test_migrated_config_moves_onto_the_module():
    transform.register_config("test.migrating", "int", 1, "test_migrated")
    irm.IRModule.register_attr_key("test_migrated", "int")
    assert irm.IRModule.list_attr_keys()["test_migrated"] == "int"
    with irm.PassContext(config={"test.migrating": 7}):
        mod = irm.migrate_pass_config(irm.IRModule())
    assert mod.get_attr("test_migrated") == 7
    assert irm.get_config(mod, "test.migrating") == 7


def test_module_attributes_and_freeze():
    mod = irm.IRModule(attrs={"mod_name": "net"})
    assert mod.attrs == {"mod_name": "net"}
    assert mod.without_attr("mod_name").attrs == {}
    assert mod.get_attr("executor") is None
    frozen = mod.freeze()
    assert frozen.is_frozen and not mod.is_frozen
    with pytest.raises(TypeError):
        mod.with_attr("executor", 3)
    assert irm.from_json(frozen.to_json()).is_frozen


def test_pipeline_text_round_trips():
    pipeline = irm.parse_pipeline("Sequential(MigratePassConfig,MigratePassConfig)")
    assert str(pipeline) == "Sequential(MigratePassConfig,MigratePassConfig)"
    assert str(irm.parse_pipeline(str(pipeline))) == str(pipeline)
    assert "MigratePassConfig" in transform.Pass.list_registered()
    with pytest.raises(ValueError, match="did you mean 'MigratePassConfig'"):
        irm.parse_pipeline("Sequential(MigratePassConfg)")


class Recorder(irm.PassInstrument):
    def __init__(self, events, skip=()):
        super().__init__("Recorder")
        self.events, self.skip = events, skip

    def enter_pass_ctx(self):
        self.events.append("enter")

    def exit_pass_ctx(self):
        self.events.append("exit")

    def should_run(self, mod, info):
        self.events.append(("should_run", info.name))
        return info.name not in self.skip

    def run_before_pass(self, mod, info):
        self.events.append(("before", info.name))

    def run_after_pass(self, mod, info):
        self.events.append(("after", info.name))


def test_python_instrument_sees_events_in_tvm_order():
    events = []

    @irm.module_pass
    def Good(mod, ctx):
        return mod

    with irm.PassContext(instruments=[Recorder(events, skip=["Skipped"])]):
        irm.Sequential([Good, irm.module_pass(lambda m, c: m, name="Skipped")])(irm.IRModule())
    assert events == ["enter",
                      ("should_run", "sequential"), ("before", "sequential"),
                      ("should_run", "Good"), ("before", "Good"), ("after", "Good"),
                      ("should_run", "Skipped"),
                      ("after", "sequential"),
                      "exit"]


def test_python_instrument_around_a_pass_that_raises():
    events = []

    @irm.module_pass
    def Bad(mod, ctx):
        raise ValueError("bad module")

    with pytest.raises(ValueError, match="bad module"):
        with irm.PassContext(instruments=[Recorder(events)]):
            irm.Sequential([Bad])(irm.IRModule())
    # As in TVM: no after-hook for the failed pass nor its Sequential; the
    # context's exit still runs.
    assert events == ["enter", ("should_run", "sequential"), ("before", "sequential"),
                      ("should_run", "Bad"), ("before", "Bad"), "exit"]


def test_instrument_hook_that_raises_fails_the_run():
    class Broken(irm.PassInstrument):
        def run_before_pass(self, mod, info):
            raise RuntimeError("instrument broke")

    with irm.PassContext(instruments=[Broken()]):
        with pytest.raises(RuntimeError, match="instrument broke"):
            irm.Sequential([])(irm.IRModule())


def test_timing_printing_and_bisect_instruments(capfd):
    timing = transform.PassTimingInstrument()

    @irm.module_pass
    def Timed(mod, ctx):
        return mod

    with irm.PassContext(instruments=[timing]):
        irm.Sequential([Timed])(irm.IRModule())
        report = timing.render()  # inside the context, as in TVM
    assert "sequential" in report and "Timed" in report

    with irm.PassContext(instruments=[transform.PassPrintingInstrument(["Timed"])]):
        Timed(irm.IRModule())
    out = capfd.readouterr()
    assert "IR after pass 'Timed'" in out.out + out.err
    assert '#[version = "irm-0.1"]' in out.out + out.err  # printed with ir.Print

    def run_with_limit(limit):
        ran = []

        def counting(mod, ctx):
            ran.append(1)
            return mod

        with irm.PassContext(instruments=[transform.PassBisectInstrument(limit)]):
            irm.Sequential([irm.module_pass(counting, name="C1"),
                            irm.module_pass(counting, name="C2")])(irm.IRModule())
        return len(ran)

    # Limit n lets the first n passes run, counted in run order, Sequential first.
    assert [run_with_limit(limit) for limit in range(5)] == [0, 0, 1, 2, 2]


def test_override_instruments_replaces_them():
    events = []
    ctx = irm.PassContext(instruments=[Recorder(events)])
    assert len(ctx.instruments) == 1
    ctx.override_instruments(None)  # as in TVM: exits the old instruments
    assert ctx.instruments == [] and events == ["exit"]
    with ctx:
        irm.Sequential([])(irm.IRModule())
    assert events == ["exit"]
