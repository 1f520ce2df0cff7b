"""README.md's ```python blocks run in order, in one namespace, and print
what their comments say."""
import os
import re

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def test_readme_python_blocks_run_and_print_what_they_say(capsys):
    with open(README, encoding="utf-8") as f:
        blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)
    assert len(blocks) >= 3
    namespace = {}
    for block in blocks:
        exec(compile(block, README, "exec"), namespace)  # noqa: S102 - our own README
    printed = capsys.readouterr().out.splitlines()
    expected = [comment.strip() for block in blocks
                for comment in re.findall(r"print\(.*\)\s+# (.*)$", block, re.M)]
    assert len(printed) >= len(expected)
    for want in expected:
        if want.endswith("...}"):
            assert any(line.startswith(want[:-4]) for line in printed), want
        else:
            assert want in printed, want
