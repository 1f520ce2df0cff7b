"""The tune tests import synthetic.py (their objectives) from beside them."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
