"""The search's cost model (docs/tuning.md, "Search"): ridge regression,
in numpy, from a candidate's features to the log of its measured time.

Chosen because the trials of one workload are few (tens): a linear model
with a penalty fits in microseconds, cannot swing wildly on a handful of
points, and only has to rank the children of the evolutionary search, not
predict times. The features of a candidate are one indicator per (knob,
value), and for each numeric knob log2 of its value and that squared (so a
knob with a best middle value, a register tile, is a parabola the model can
fit), plus the products of those logs between numeric knobs (so it sees
that two tiles trade against each other). The model is trained per
workload: a workload's shape is the same for all its candidates, so it
would add nothing there. numpy is imported when the model is first used:
irm's package works without it, tuning needs it."""
import math


def _numeric(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


class CostModel:
    """Ridge regression over a Space's candidates. fit() with measured
    (candidate, seconds) pairs, predict() log-seconds for others; before
    any fit it predicts 0 for all (no preference)."""

    def __init__(self, space, penalty=1.0):
        self.space = space
        self.penalty = float(penalty)
        self.numeric = [k for k, values in enumerate(space.values) if len(values) > 1 and all(map(_numeric, values))]
        self.weights = None

    def features(self, candidates):
        import numpy as np
        rows = []
        for c in candidates:
            digits = self.space.digits(c)
            row = []
            for k, values in enumerate(self.space.values):
                if len(values) > 1:
                    row += [1.0 if digits is not None and digits[k] == d else 0.0 for d in range(len(values))]
            logs = [math.log2(c[self.space.names[k]]) for k in self.numeric]
            row += logs + [v * v for v in logs]
            row += [logs[i] * logs[j] for i in range(len(logs)) for j in range(i + 1, len(logs))]
            rows.append(row)
        return np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)

    def fit(self, candidates, seconds):
        """Trains on the candidates and their times (seconds > 0)."""
        import numpy as np
        x = self.features(candidates)
        y = np.log(np.asarray(seconds, dtype=np.float64))
        self.mean_x = x.mean(axis=0)
        self.scale_x = x.std(axis=0)
        self.scale_x[self.scale_x == 0] = 1.0
        self.mean_y = y.mean()
        z = (x - self.mean_x) / self.scale_x
        a = z.T @ z + self.penalty * np.eye(z.shape[1])
        self.weights = np.linalg.solve(a, z.T @ (y - self.mean_y))

    def predict(self, candidates):
        """Predicted log-seconds of each candidate (lower is faster)."""
        import numpy as np
        if self.weights is None or not candidates:
            return np.zeros(len(candidates))
        z = (self.features(candidates) - self.mean_x) / self.scale_x
        return z @ self.weights + self.mean_y
