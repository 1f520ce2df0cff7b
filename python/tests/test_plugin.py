"""Plugins from Python: IRM_PLUGIN_PATH at import, load_plugin, list_plugins.
ctest passes the example plugins' paths in IRM_TEST_PASS_PLUGIN and
IRM_TEST_EXECUTOR_PLUGIN (the latter also as IRM_PLUGIN_PATH)."""
import os

import pytest

import irm


def _plugin(var):
    path = os.environ.get(var)
    if not path:
        pytest.skip("%s is not set (ctest sets it)" % var)
    return path


def test_irm_plugin_path_is_loaded_at_import():
    path = _plugin("IRM_TEST_EXECUTOR_PLUGIN")
    if os.environ.get("IRM_PLUGIN_PATH") != path:
        pytest.skip("IRM_PLUGIN_PATH does not name the executor plugin")
    assert "micro-aot" in irm.Executor.list_registered()
    assert os.path.realpath(path) in [info["path"] for info in irm.list_plugins()]
    executor = irm.Executor("micro-aot")
    assert executor["interface-api"] == "c"
    assert irm.Executor.get_kind_attr("micro-aot", "default_runtime") == "crt"


def test_load_plugin_registers_its_pass_and_python_pipelines_use_it():
    path = _plugin("IRM_TEST_PASS_PLUGIN")
    info = irm.load_plugin(path)
    assert info["name"] == "choose-data-layout" and info["path"] == os.path.realpath(path)
    assert irm.load_plugin(path) == info  # a second load is a no-op
    assert [p["name"] for p in irm.list_plugins()].count("choose-data-layout") == 1
    seen = []

    @irm.module_pass
    def ReadLayout(mod, ctx):
        seen.append((mod.get_attr("executor").name, mod.get_attr("data_layout")))
        return mod

    mod = (irm.IRModule()
           .with_attr("target", irm.Target("llvm -keys=arm_cpu"))
           .with_attr("executor", irm.Executor("aot")))
    irm.Sequential([irm.transform.Pass.get("ChooseDataLayout"), ReadLayout])(mod)
    assert seen == [("aot", "NHWC")]


def test_list_plugins_gives_info_dicts():
    for info in irm.list_plugins():
        assert set(info) == {"name", "version", "path"}


def test_a_missing_plugin_is_a_plugin_error():
    with pytest.raises(irm.PluginError, match="^cannot load plugin '/nonexistent/x.so'"):
        irm.load_plugin("/nonexistent/x.so")
