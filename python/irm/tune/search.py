"""The search of one workload's knob space (docs/tuning.md, "Search"):
random sampling without repeats first, then an evolutionary search whose
children are ranked by a cost model trained on the measurements so far,
with early stopping. Ask-and-tell: propose() hands out candidates, tell()
takes their measurements, so the runner decides how many run at once.
Deterministic for a seed and a sequence of told results."""
import random

from .cost_model import CostModel
from .space import Space, canonical

# children bred per candidate asked for: enough choice for the model to
# matter, few enough that ranking them costs nothing beside a measurement
CHILDREN_PER_PICK = 16
# the best this many measured candidates breed
POPULATION = 8


class Search:
    """Search of knobs ({knob: [legal values]}) within trials measurements.

    early_stopping: stop once the best has not improved for this many
    measurements (None: never). Candidates measured before (resume) are
    given with tell() before the first propose(); they count towards the
    trials, and none is proposed again. A failed measurement (seconds None)
    is never the best, and the model takes it as slower than the slowest."""

    def __init__(self, knobs, trials=32, seed=0, early_stopping=None):
        self.space = Space(knobs)
        self.trials = int(trials)
        self.early_stopping = early_stopping
        self.rng = random.Random(seed)
        self.model = CostModel(self.space)
        self.results = {}  # canonical text -> seconds or None, in order told
        self.pending = set()
        self.random_trials = self.trials if self.space.size <= self.trials else max(4, self.trials // 2)
        self.best = None  # (seconds, candidate)
        self.since_best = 0

    def tell(self, candidate, seconds):
        """Records candidate's measurement: seconds, or None when it failed."""
        text = canonical(candidate)
        self.pending.discard(text)
        if text in self.results:
            return
        self.results[text] = (candidate, seconds)
        if seconds is not None and (self.best is None or seconds < self.best[0]):
            self.best = (seconds, candidate)
            self.since_best = 0
        else:
            self.since_best += 1

    def done(self):
        """True once the budget is spent, the space exhausted, or the best
        has not improved for early_stopping measurements."""
        used = len(self.results) + len(self.pending)
        if used >= self.trials or used >= self.space.size:
            return True
        return self.early_stopping is not None and self.since_best >= self.early_stopping

    def propose(self, count):
        """Up to count candidates never proposed nor measured (fewer near
        the end of the budget; none when done())."""
        if self.done():
            return []
        count = min(count, self.trials - len(self.results) - len(self.pending))
        seen = set(self.results) | self.pending
        if len(seen) < self.random_trials:
            picks = self.space.sample(self.rng, min(count, self.random_trials - len(seen)), seen)
        else:
            picks = self._evolve(count, seen)
        self.pending.update(canonical(c) for c in picks)
        return picks

    def _evolve(self, count, seen):
        measured = [(c, s) for c, s in self.results.values()]
        ok = sorted((s, i) for i, (c, s) in enumerate(measured) if s is not None)
        if not ok:
            return self.space.sample(self.rng, count, seen)
        worst = ok[-1][0] * 2
        self.model.fit([c for c, _ in measured], [worst if s is None else s for _, s in measured])
        parents = [measured[i][0] for _, i in ok[:POPULATION]]
        children, texts = [], set()
        for _ in range(CHILDREN_PER_PICK * count * 4):
            if len(children) >= CHILDREN_PER_PICK * count:
                break
            if len(parents) > 1 and self.rng.random() < 0.5:
                a, b = self.rng.sample(parents, 2)
                child = self.space.mutate(self.rng, self.space.crossover(self.rng, a, b))
            else:
                child = self.space.mutate(self.rng, self.rng.choice(parents))
            text = canonical(child)
            if text not in seen and text not in texts:
                texts.add(text)
                children.append(child)
        # a quarter of the picks (at least one in four batches) explore at random
        explore = count // 4 + (1 if self.rng.random() < (count % 4) / 4 else 0)
        ranked = sorted(zip(self.model.predict(children), range(len(children))))
        picks = [children[i] for _, i in ranked[:count - explore]]
        taken = seen | {canonical(c) for c in picks}
        picks += self.space.sample(self.rng, count - len(picks), taken)
        return picks
