"""Frontends: models from other frameworks as irm IRModules.

- :func:`from_onnx` (``irm.frontend.onnx``): an ONNX ModelProto (or a path)
  to ``(IRModule, params)``; needs the ``onnx`` and ``numpy`` packages.
"""


def from_onnx(model, shape=None, dtype=None, max_constant_bytes=None):
    """The ONNX model as ``(IRModule, params)``; see irm.frontend.onnx."""
    from .onnx import from_onnx as convert
    return convert(model, shape=shape, dtype=dtype, max_constant_bytes=max_constant_bytes)


__all__ = ["from_onnx"]
