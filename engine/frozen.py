"""Read-only lists and dicts, for the parts of an observation that are built once and
shared between calls (finished tricks, the score board).

They are real ``list`` and ``dict`` subclasses, so they compare equal to plain ones and
serialise (JSON, msgpack) and print the same; only changing them in place is refused, so a
caller cannot alter what the next observation returns. A copy is plain and mutable:

>>> row = freeze({"cards": [[0, "TS"], [1, "AS"]], "winner": 0})
>>> row == {"cards": [[0, "TS"], [1, "AS"]], "winner": 0}
True
>>> row["cards"].append([2, "KS"])
Traceback (most recent call last):
...
TypeError: this part of the observation is shared and read-only: copy it first
>>> import copy, json
>>> json.dumps(row)
'{"cards": [[0, "TS"], [1, "AS"]], "winner": 0}'
>>> mine = copy.deepcopy(row)
>>> mine["cards"].append([2, "KS"]); type(mine["cards"]) is list
True
"""

from __future__ import annotations

import copy


def _read_only(self, *args, **kwargs):
    raise TypeError("this part of the observation is shared and read-only: copy it first")


class FrozenList(list):
    """A list that refuses changes; ``list(x)`` or ``copy.deepcopy(x)`` give plain ones."""

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo) -> list:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce_ex__(self, protocol):  # pickles as a plain list
        return (list, (list(self),))


class FrozenDict(dict):
    """A dict that refuses changes; ``dict(x)`` or ``copy.deepcopy(x)`` give plain ones."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo) -> dict:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce_ex__(self, protocol):  # pickles as a plain dict
        return (dict, (dict(self),))


def freeze(value):
    """JSON-like data (dicts, lists, tuples, scalars) as read-only containers."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([freeze(v) for v in value])
    return value


EMPTY = FrozenList()
