"""docs/howto/python-ir.md's dtype list is what irm.tensor accepts: every
dtype the package knows, in the package's order, and each one makes a
tensor."""
import os
import re
import sys

import irm

tensor_module = sys.modules["irm.tensor"]  # irm.tensor is the function

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "howto", "python-ir.md")


def documented():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^- dtypes: ([^.]*)\.", text, re.M)
    assert m, "python-ir.md has no '- dtypes: ...' line"
    return [d.strip() for d in re.sub(r"\s+", " ", m.group(1)).split(",")]


def test_doc_lists_the_package_dtypes():
    assert documented() == list(tensor_module._FORMATS)


def test_each_documented_dtype_makes_a_tensor():
    for dtype in documented():
        assert irm.tensor([1, 0], dtype=dtype).dtype == dtype
