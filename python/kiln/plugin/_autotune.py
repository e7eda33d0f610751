"""Autotuning of kiln.plugin: AutoTuneCombination and its expansion into concrete type/format combinations.

A combination describes, per plugin I/O position (inputs then outputs), the data types and formats allowed.
In a type string such as ``"FP32|FP16, FP32|FP16"`` each comma-separated entry is one position; ``|`` makes the
choices of all such entries move together (both FP32 or both FP16), ``*`` makes an entry an independent choice.
Layout strings use TensorFormat names with the same grammar. A string with a single entry applies to every
position. The expansion feeds supports_format_combination
and get_valid_tactics of the plugin.
"""

import itertools

__all__ = ["AutoTuneCombination"]

# Short names used by type strings; other DataType members are spelled as in the enum (INT8, BOOL, BF16, ...).
_TYPE_ALIASES = {"FP32": "FLOAT", "FP16": "HALF"}


def _trt():
    from .. import _kiln

    return _kiln


def _parse_entry(entry, what):
    """Parse one position: 'A|B' -> (['A','B'], '|'), 'A*B' -> (..., '*'), 'A' -> (['A'], None)."""
    entry = entry.strip()
    if not entry:
        raise ValueError(f"AutoTuneCombination: empty {what} entry")
    has_dep = "|" in entry
    has_ind = "*" in entry
    if has_dep and has_ind:
        raise ValueError(f"AutoTuneCombination: {what} entry '{entry}' mixes '|' and '*'")
    sep = "|" if has_dep else ("*" if has_ind else None)
    names = [n.strip() for n in (entry.split(sep) if sep else [entry])]
    if any(not n for n in names):
        raise ValueError(f"AutoTuneCombination: {what} entry '{entry}' has an empty choice")
    return names, sep


def _parse_list(text, what):
    if not isinstance(text, str):
        raise TypeError(f"AutoTuneCombination: {what} must be a str, got {type(text).__name__}")
    return [_parse_entry(e, what) for e in text.split(",")]


def _data_type(name):
    trt = _trt()
    member = _TYPE_ALIASES.get(name.upper(), name.upper())
    value = getattr(trt.DataType, member, None)
    if value is None:
        raise ValueError(f"AutoTuneCombination: unknown data type '{name}' (use FP32, FP16, BF16, INT8, INT32, "
                         "INT64, BOOL, UINT8, FP8, INT4, ...)")
    return value


def _tensor_format(name):
    trt = _trt()
    value = getattr(trt.TensorFormat, name.upper(), None)
    if value is None:
        raise ValueError(f"AutoTuneCombination: unknown layout '{name}' (use TensorFormat names such as LINEAR, "
                         "CHW32, HWC8)")
    return value


class AutoTuneCombination:
    """A set of supported type/format combinations of a plugin's I/O, with optional custom tactics.

    ``AutoTuneCombination("FP32|FP16, FP32|FP16")`` - both tensors FP32 or both FP16;
    ``AutoTuneCombination("FP32*FP16, FP32", "LINEAR, LINEAR", [1, 2])`` - input FP32 or FP16, output FP32,
    linear layouts, custom tactics 1 and 2. ``pos(positions, io_types, layouts)`` sets positions one by one.
    """

    def __init__(self, io_types=None, layouts=None, tactics=None):
        """See the class docstring; the type names are validated when the combination is used."""
        self._types = _parse_list(io_types, "io_types") if io_types is not None else None
        self._layouts = _parse_list(layouts, "layouts") if layouts is not None else None
        self._pos_types = {}
        self._pos_layouts = {}
        self._tactics = []
        if tactics is not None:
            self.tactics(tactics)

    def pos(self, pos, io_types, layouts="LINEAR"):
        """Set the types (and layouts) of one position or of a list of positions; returns self."""
        positions = [pos] if isinstance(pos, int) else list(pos)
        if not positions or any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in positions):
            raise ValueError(f"AutoTuneCombination.pos: positions must be non-negative ints, got {pos!r}")
        types = _parse_entry(io_types, "io_types")
        lays = _parse_entry(layouts, "layouts")
        for p in positions:
            self._pos_types[p] = types
            self._pos_layouts[p] = lays
        return self

    def tactics(self, tactics):
        """Advertise custom tactics (non-zero ints, no duplicates) for these combinations; returns self."""
        values = list(tactics)
        for t in values:
            if isinstance(t, bool) or not isinstance(t, int):
                raise TypeError(f"AutoTuneCombination.tactics: tactics must be ints, got {type(t).__name__}")
            if t == 0:
                raise ValueError("AutoTuneCombination.tactics: tactic 0 is reserved for the default tactic")
            if not -(2 ** 31) <= t < 2 ** 31:
                raise ValueError(f"AutoTuneCombination.tactics: tactic {t} does not fit in 32 bits")
        if len(set(values)) != len(values):
            raise ValueError(f"AutoTuneCombination.tactics: duplicate tactics in {values}")
        self._tactics = values
        return self

    def get_tactics(self):
        """The custom tactics of this combination."""
        return list(self._tactics)

    def _entries(self, whole, per_pos, num_io, what, default):
        if whole is not None and len(whole) == 1 and num_io > 1:
            whole = whole * num_io  # one entry applies to every position
        if whole is not None and len(whole) != num_io:
            raise ValueError(f"AutoTuneCombination: {what} has {len(whole)} entries, the plugin has {num_io} "
                             "inputs and outputs")
        entries = list(whole) if whole is not None else [None] * num_io
        for p, entry in per_pos.items():
            if p >= num_io:
                raise ValueError(f"AutoTuneCombination.pos: position {p} out of range (the plugin has {num_io} "
                                 "inputs and outputs)")
            entries[p] = entry
        missing = [i for i, e in enumerate(entries) if e is None]
        if missing:
            if default is None:
                raise ValueError(f"AutoTuneCombination: no {what} for I/O positions {missing}")
            for i in missing:
                entries[i] = ([default], None)
        return entries

    @staticmethod
    def _expand(entries, convert, what):
        """All concrete assignments (tuples, one value per position) described by the entries."""
        converted = [([convert(n) for n in names], sep) for names, sep in entries]
        dep_counts = {len(vals) for vals, sep in converted if sep == "|"}
        if len(dep_counts) > 1:
            raise ValueError(f"AutoTuneCombination: {what} entries joined by '|' must list the same number of "
                             f"choices, got {sorted(dep_counts)}")
        dep_n = dep_counts.pop() if dep_counts else 1
        result = []
        for j in range(dep_n):
            choices = []
            for vals, sep in converted:
                if sep == "|":
                    choices.append([vals[j]])
                else:
                    choices.append(vals)
            for combo in itertools.product(*choices):
                if combo not in result:
                    result.append(combo)
        return result

    def _combinations(self, num_io):
        """Concrete ((dtype, format) per position) tuples of this combination."""
        type_entries = self._entries(self._types, self._pos_types, num_io, "io_types", None)
        layout_entries = self._entries(self._layouts, self._pos_layouts, num_io, "layouts", "LINEAR")
        types = self._expand(type_entries, _data_type, "io_types")
        layouts = self._expand(layout_entries, _tensor_format, "layouts")
        return [tuple(zip(t, lay)) for t in types for lay in layouts]

    def __repr__(self):
        return f"AutoTuneCombination(types={self._types}, layouts={self._layouts}, tactics={self._tactics})"


class FormatTable:
    """The expanded combinations of a plugin: answers supports_format_combination and get_valid_tactics."""

    def __init__(self, combinations, num_io):
        self._rows = []  # (tuple of (dtype, format) per position, tactics)
        for combo in combinations:
            tactics = combo.get_tactics()
            for row in combo._combinations(num_io):
                self._rows.append((row, tactics))

    @classmethod
    def from_defaults(cls, dtypes):
        """The table used without an autotune function: the given types, LINEAR formats, no tactics."""
        table = cls([], len(dtypes))
        linear = _trt().TensorFormat.LINEAR
        table._rows.append((tuple((d, linear) for d in dtypes), []))
        return table

    def supports(self, pos, in_out):
        """True when some combination matches positions 0..pos of `in_out` ((dtype, format) pairs)."""
        prefix = tuple(in_out[: pos + 1])
        return any(row[: pos + 1] == prefix for row, _ in self._rows)

    def tactics(self, config):
        """Custom tactics of the combinations matching a full configuration, in first-seen order."""
        config = tuple(config)
        out = []
        for row, tactics in self._rows:
            if row == config:
                out.extend(t for t in tactics if t not in out)
        return out

    @property
    def rows(self):
        """The concrete combinations (for tests and diagnostics)."""
        return [row for row, _ in self._rows]
