"""Makes the package importable from the source tree (ctest also sets
PYTHONPATH) and gives the example plugins' paths to the tests."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
