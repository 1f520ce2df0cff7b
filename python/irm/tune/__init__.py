"""Tuning (docs/tuning.md): the tuning database (Database, list_tunables),
and tune(), which searches each tunable workload of a model (Search, with
its CostModel) and measures candidates with a runner (LocalRunner,
DaskRunner) into the database. ``python3 -m irm.tune`` is what ``irm tune
MODEL`` runs."""
from .cost_model import CostModel
from .database import Database, list_tunables
from .driver import tune
from .runners import DaskRunner, LocalRunner
from .search import Search
from .space import Space, canonical
