"""A workload's knob space (docs/tuning.md, "Search"): the candidates of
{knob: [legal values]} numbered in mixed radix, so sampling without
repeats is sampling distinct integers, and the neighbourhood moves of the
evolutionary search (mutation, crossover) stay inside the space."""
import json


def canonical(candidate):
    """The candidate's JSON text in the database's canonical form (sorted
    keys, no spaces): one candidate, one text."""
    return json.dumps(candidate, sort_keys=True, separators=(",", ":"))


class Space:
    """The candidates of knobs ({knob: [legal values]}, each list non-empty).
    Knobs are taken in sorted order so that numbering does not depend on
    the order the mapping came in."""

    def __init__(self, knobs):
        self.names = sorted(knobs)
        self.values = [list(knobs[name]) for name in self.names]
        for name, values in zip(self.names, self.values):
            if not values:
                raise ValueError("tune: knob '%s' has no legal value" % name)
        self.size = 1
        for values in self.values:
            self.size *= len(values)

    def candidate(self, index):
        """The candidate numbered index (0 <= index < size) as a dict."""
        out = {}
        for name, values in zip(self.names, self.values):
            index, digit = divmod(index, len(values))
            out[name] = values[digit]
        return out

    def digits(self, candidate):
        """The position of each knob's value in its list, or None when the
        candidate names a value outside the space."""
        out = []
        for name, values in zip(self.names, self.values):
            value = candidate.get(name)
            matches = [i for i, v in enumerate(values) if v == value and type(v) is type(value)]
            if not matches:
                return None
            out.append(matches[0])
        return out

    def from_digits(self, digits):
        return {name: values[d] for name, values, d in zip(self.names, self.values, digits)}

    def sample(self, rng, count, exclude=()):
        """Up to count distinct candidates drawn at random, none of them in
        exclude (canonical texts); the whole rest of the space, shuffled,
        when it has no more."""
        exclude = set(exclude)
        left = self.size - len(exclude)
        if left <= count:
            order = list(range(self.size))
            rng.shuffle(order)
            picked = [self.candidate(i) for i in order]
            return [c for c in picked if canonical(c) not in exclude][:count]
        out, seen = [], set(exclude)
        while len(out) < count:
            # rejection over distinct indices: the space has more than
            # count + len(exclude) candidates, so this ends quickly
            for index in rng.sample(range(self.size), min(self.size, count - len(out) + len(exclude))):
                c = self.candidate(index)
                text = canonical(c)
                if text not in seen:
                    seen.add(text)
                    out.append(c)
                    if len(out) == count:
                        break
        return out

    def mutate(self, rng, candidate):
        """candidate with one knob (of those with a choice) moved: to a
        neighbouring value half the time (knob values are listed in order,
        so a neighbour is a similar schedule), else to any other value."""
        digits = self.digits(candidate)
        free = [k for k, values in enumerate(self.values) if len(values) > 1]
        if digits is None or not free:
            return dict(candidate)
        k = rng.choice(free)
        n = len(self.values[k])
        if rng.random() < 0.5:
            step = rng.choice((-1, 1))
            digits[k] = min(n - 1, max(0, digits[k] + step))
        else:
            digits[k] = rng.choice([d for d in range(n) if d != digits[k]])
        return self.from_digits(digits)

    def crossover(self, rng, a, b):
        """Each knob's value taken from a or b at random."""
        return {name: (a if rng.random() < 0.5 else b)[name] for name in self.names}
