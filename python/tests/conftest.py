"""Makes the package importable from the source tree (ctest also sets
PYTHONPATH) and gives the example plugins' paths to the tests."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# export_library's build cache never goes to the user's ~/.cache: ctest sets
# IRM_CACHE_DIR; run by hand, the tests keep it under the temporary folder.
os.environ.setdefault("IRM_CACHE_DIR", os.path.join(os.environ.get("TMPDIR") or "/tmp", "irm-test-cache"))
