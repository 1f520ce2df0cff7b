"""Frontends: models from other frameworks as irm IRModules.

- :func:`from_onnx` (``irm.frontend.onnx``): an ONNX ModelProto (or a path)
  to ``(IRModule, params)``; needs the ``onnx`` and ``numpy`` packages.
"""


def from_onnx(model, shape=None, dtype=None):
    """The ONNX model as ``(IRModule, params)``; see irm.frontend.onnx."""
    from .onnx import from_onnx as convert
    return convert(model, shape=shape, dtype=dtype)


__all__ = ["from_onnx"]
