"""Every global of the C ABI's contract that the library registers is reached
through the package. Runs last (file order) so that it sees what the other
test files reached."""
import pytest

import irm
from irm import _ffi

_CONTRACT = """
ffi.Array ffi.ArraySize ffi.ArrayGetItem ffi.Map ffi.MapSize ffi.MapGetItem ffi.MapItems
ffi.ListGlobalFuncNames ffi.ToJSON ffi.FromJSON ffi.StructuralEqual ffi.StructuralHash ffi.Repr
ffi.Tensor ffi.TensorShape ffi.TensorDtype ffi.TensorData
target.Target target.AsString target.Export target.GetAttr target.Kind target.Host target.Keys
target.ListKinds target.ListKindOptions target.ListTags target.RegisterKind target.RegisterTag
target.SetKindAttr target.GetKindAttr target.EnterScope target.ExitScope target.Current
target.ConvertLegacy
executor.Create executor.Name executor.GetAttr executor.Attrs executor.ListKinds
executor.ListOptions executor.RegisterKind executor.SetKindAttr executor.GetKindAttr
runtime.Create runtime.Name runtime.GetAttr runtime.Attrs runtime.ListKinds
runtime.ListOptions runtime.RegisterKind runtime.SetKindAttr runtime.GetKindAttr
ir.IRModule ir.ModuleGetAttr ir.ModuleWithAttr ir.ModuleWithoutAttr ir.ModuleAttrs
ir.ModuleFreeze ir.ModuleIsFrozen ir.ListModuleAttrKeys ir.RegisterModuleAttrKey
ir.Parse ir.Print ir.ExampleModel ir.Evaluate ir.Verify
transform.PassContext transform.EnterPassContext transform.ExitPassContext
transform.CurrentPassContext transform.PassContextInfo transform.ListConfigs
transform.RegisterConfig transform.GetConfig transform.GetPass transform.ListPasses
transform.PassInfo transform.Sequential transform.CreateModulePass transform.CreateFunctionPass
transform.RunPass transform.ParsePipeline transform.PrintPipeline transform.PassInstrument
transform.PassTimingInstrument transform.RenderTiming transform.PassPrintingInstrument
transform.PassBisectInstrument transform.OverrideInstruments transform.MigratePassConfig
ir.CompilationConfig driver.Build plugin.Load plugin.List
""".split()


def test_every_contract_global_that_exists_is_reached():
    if len(_ffi._REACHED) < 40:
        pytest.skip("run with the whole suite: it counts what the other tests reached")
    existing = set(irm.list_global_func_names())
    missed = sorted(name for name in _CONTRACT if name in existing and name not in _ffi._REACHED)
    assert missed == []
