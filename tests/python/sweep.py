"""Sweeps every value path of a built package with hostile but ordinary values: every scalar and
handle constructor, every member of every record class, every by-value integer, enum and handle
parameter of every function (called against the fake driver, whose generic entry point records
its register arguments).

    python sweep.py IR_JSON PACKAGE [FAKE_LIBCUDA]

Values tried on an integer path: both bounds of its C type, one beyond each, floats, a str,
bytes, None and an object of another class. Each must read back equal (or reach the driver
equal), or raise the right exception (OverflowError out of range, TypeError for a wrong type)
with the storage unchanged. A float converts as int() converts it (ValueError for NaN); a package
generated with `--strict-integers` refuses a float that is not integral instead: say which with
CTKGEN_SWEEP_STRICT_INTEGERS=1, and the sweep checks the package was built that way. Types come from the IR, not from the package, so the sweep is an
independent oracle. Prints one JSON line: counts (paths, values) and the failures."""
import ctypes
import importlib
import json
import os
import pkgutil
import re
import sys
import tomllib

PRIMITIVES = {
    "char": (8, True), "signed_char": (8, True), "unsigned_char": (8, False),
    "short": (16, True), "unsigned_short": (16, False), "int": (32, True), "unsigned_int": (32, False),
    "long": (64, True), "unsigned_long": (64, False), "long_long": (64, True),
    "unsigned_long_long": (64, False), "bool": (1, False),
}
BUILTIN = {
    "size_t": "unsigned_long", "ssize_t": "long", "uintptr_t": "unsigned_long", "intptr_t": "long",
    "uint8_t": "unsigned_char", "uint16_t": "unsigned_short", "uint32_t": "unsigned_int",
    "uint64_t": "unsigned_long", "int8_t": "signed_char", "int16_t": "short", "int32_t": "int", "int64_t": "long",
}
FLOATS = {"float", "double"}
POINTER_BITS = 8 * ctypes.sizeof(ctypes.c_void_p)


class Sweep:
    def __init__(self, ir, package, fake):
        # The library module the IR belongs to: its private modules carry its name.
        self.module = os.environ.get("CTKGEN_SWEEP_MODULE", "driver")
        self.ir = ir
        self.typedefs = {t["name"]: t for t in ir["typedefs"]}
        self.enums = {e["name"]: e for e in ir["enums"]}
        self.records = {r["name"]: r for r in ir["records"]}
        self.base = importlib.import_module(f"{package}._base")
        self.modules = []
        pkg = importlib.import_module(package)
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            if info.name.startswith(tuple(f"_{self.module}_{part}" for part in ("types", "records", "functions", "enums"))):
                try:
                    self.modules.append(importlib.import_module(f"{package}.{info.name}"))
                except ImportError:
                    pass  # not built (a partial sanitizer build)
        self.registry = self.base._class_registry
        self.strict = os.environ.get("CTKGEN_SWEEP_STRICT_INTEGERS") == "1"
        self.fake = fake
        self.paths = {}
        self.values = {}
        self.failures = []
        self.refused = []
        # An object of another class: no __index__, no buffer, not iterable.
        self.foreign = next((cls for name, cls in sorted(self.registry.items())), object)()
        self.c_names = renamed_parameters(self.module)

    def c_param(self, arg, params):
        """The IR parameter a Python argument stands for: its own name, else the description's
        spelling undone (a C `length` is not a renamed `len`), else a reserved word's `_` dropped."""
        if arg in params:
            return params[arg]
        name = self.c_names.get(arg, arg)
        if name not in params and name.endswith("_"):
            name = name[:-1]
        return params.get(name)

    # -- types ---------------------------------------------------------------------------------
    def kind(self, ty):
        """('int', bits, signed) | ('float',) | ('handle',) | ('pointer',) | ('record', name) |
        ('chars', n) | ('array', kind, n) | None, following typedefs the way C does."""
        k = ty["kind"]
        if k == "bitfield":
            inner = self.kind(ty["ty"])
            return ("int", min(ty["width"], inner[1]), inner[2])
        if k == "primitive":
            if ty["name"] in FLOATS:
                return ("float",)
            return ("int", *PRIMITIVES[ty["name"]]) if ty["name"] in PRIMITIVES else None
        if k == "enum":
            e = self.enums.get(ty["name"])
            return ("int", *PRIMITIVES[e["underlying"]]) if e else None
        if k == "typedef":
            name = ty["name"]
            if name in BUILTIN and name not in self.typedefs:
                return ("int", *PRIMITIVES[BUILTIN[name]])
            inner = self.typedefs[name]["ty"]
            if inner["kind"] == "pointer":
                return ("handle",)
            return self.kind(inner)
        if k == "pointer":
            return ("pointer",)
        if k == "record":
            r = self.records.get(ty["name"])
            return ("record", ty["name"]) if r and r["complete"] else None
        if k == "array":
            element = ty["element"]
            resolved = element
            while resolved["kind"] == "typedef" and resolved["name"] in self.typedefs:
                resolved = self.typedefs[resolved["name"]]["ty"]
            if resolved["kind"] == "primitive" and resolved["name"] in ("char", "signed_char", "unsigned_char"):
                # Bytes; plain char takes a str too, the signed ones negative byte values.
                return ("chars", ty["len"], resolved["name"] == "char", 0 if resolved["name"] == "unsigned_char" else -128)
            inner = self.kind(element)
            return ("array", inner, ty["len"]) if inner and inner[0] not in ("chars", "array") else ("opaque",)
        return None

    def first_enumerator(self, ty):
        """The first value an enum type (or a typedef of one) declares, else None."""
        while ty["kind"] == "typedef" and ty["name"] in self.typedefs:
            ty = self.typedefs[ty["name"]]["ty"]
        e = self.enums.get(ty["name"]) if ty["kind"] == "enum" else None
        return e["constants"][0]["value"] if e and e["constants"] else None

    def fields(self, record):
        """(name, type) of every member the class has: anonymous nested records flattened."""
        for field in record["fields"]:
            ty = field["ty"]
            nested = self.records.get(ty.get("name")) if ty["kind"] == "record" else None
            if field.get("anonymous") and nested is not None:
                yield from self.fields(nested)
            elif field["name"] and field["bit_width"] is None:
                yield field["name"], ty
            elif field["name"]:
                # A bitfield: the width of its own, the signedness of its type.
                yield field["name"], {"kind": "bitfield", "width": field["bit_width"], "ty": ty}

    def record_of(self, cls):
        """The IR record of a class; an alias class (a typedef's subclass) finds its base's."""
        for klass in cls.__mro__:
            if klass.__name__ in self.records:
                return self.records[klass.__name__]
            for r in self.records.values():
                if r.get("typedef_name") == klass.__name__:
                    return r
        return None

    # -- bookkeeping ---------------------------------------------------------------------------
    def note(self, path_kind, path, value, problem):
        self.values[path_kind] = self.values.get(path_kind, 0) + 1
        if problem:
            self.failures.append(f"{path}  {value!r}: {problem}")

    def attempt(self, path_kind, path, value, assign, read, snapshot, expect):
        """`expect` is an exception type (or tuple), or a function of the read-back value that
        says whether it is right."""
        before = snapshot()
        try:
            assign(value)
        except Exception as error:  # noqa: BLE001 (any exception is a finding)
            if isinstance(expect, type) and issubclass(expect, BaseException) or isinstance(expect, tuple):
                if not isinstance(error, expect):
                    return self.note(path_kind, path, value, f"raised {type(error).__name__} ({error}), expected {expect}")
                if snapshot() != before:
                    return self.note(path_kind, path, value, f"raised {type(error).__name__} but changed the storage")
                return self.note(path_kind, path, value, None)
            return self.note(path_kind, path, value, f"raised {type(error).__name__}: {error}")
        if isinstance(expect, type) and issubclass(expect, BaseException) or isinstance(expect, tuple):
            return self.note(path_kind, path, value, f"accepted (reads {safe(read)!r}), expected {expect}")
        try:
            got = read()
        except Exception as error:  # noqa: BLE001
            return self.note(path_kind, path, value, f"getter raised {type(error).__name__}: {error}")
        self.note(path_kind, path, value, None if expect(got) else f"reads back {got!r}")

    # -- value sets ----------------------------------------------------------------------------
    def float_values(self, lo, hi):
        """Floats on an integer path whose C range is lo..hi, with what each must give."""
        same = lambda v: (lambda got: as_int(got) == v)  # noqa: E731
        fits = lambda v: same(v) if lo <= v <= hi else OverflowError  # noqa: E731
        if self.strict:
            return [(1.5, TypeError), (float("nan"), TypeError), (float("inf"), TypeError), (2.0, fits(2))]
        return [(1.5, fits(1)), (-1.5, fits(-1)), (float("nan"), ValueError), (float("inf"), OverflowError),
                (2.0, fits(2))]

    def float_in_list(self, hi):
        """What a list holding 1.5 among in-range ints gives (None: the element reads 1), or the
        error: TypeError in strict mode, or where 1 is beyond the element's range `hi`."""
        return TypeError if self.strict or hi < 1 else None

    def int_values(self, bits, signed, none_is_zero=False):
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        same = lambda v: (lambda got: as_int(got) == v)  # noqa: E731
        return [(lo, same(lo)), (hi, same(hi)), (lo - 1, OverflowError), (hi + 1, OverflowError),
                *self.float_values(lo, hi), ("7", TypeError), (b"7", TypeError),
                (None, same(0) if none_is_zero else TypeError), (self.foreign, TypeError)]

    def has_scalar_class(self, ty):
        """Whether a member of type `ty` holds a scalar wrapper class (`CUdeviceptr`,
        `cuuint64_t`): the first typedef on the way down that has a class decides, as in C."""
        types = next((m for m in self.modules if m.__name__.endswith(f"._{self.module}_types")), None)
        while ty["kind"] == "typedef" and ty["name"] in self.typedefs:
            if isinstance(getattr(types, ty["name"], None), type):
                return self.typedefs[ty["name"]]["ty"]["kind"] != "pointer"
            ty = self.typedefs[ty["name"]]["ty"]
        return False

    def handle_values(self, none_ok):
        same = lambda v: (lambda got: as_int(got) == v)  # noqa: E731
        top = (1 << POINTER_BITS) - 1
        return [(0, same(0)), (top, same(top)), (-1, OverflowError), (top + 1, OverflowError),
                *self.float_values(0, top), ("7", TypeError), (b"7", TypeError), (None, same(0) if none_ok else TypeError),
                (self.foreign, TypeError)]

    def member_values(self, kind, cls, member, none_is_zero=False):
        same = lambda v: (lambda got: got == v)  # noqa: E731
        if kind[0] == "int":
            return self.int_values(kind[1], kind[2], none_is_zero)
        if kind[0] == "handle":
            return self.handle_values(True)
        if kind[0] == "float":
            return [(1.5, same(1.5)), (-2.0, same(-2.0)), ("7", TypeError), (b"7", TypeError), (None, TypeError),
                    (self.foreign, TypeError)]
        if kind[0] == "pointer":
            top = (1 << POINTER_BITS) - 1
            return [(0, lambda got: got == 0), (top, lambda got: got == top), (-1, OverflowError),
                    (top + 1, OverflowError), (1.5, TypeError), ("7", TypeError), (None, lambda got: got == 0)]
        if kind[0] == "chars":
            n, text, low = kind[1], kind[2], kind[3]
            full = bytes((i * 37 + 1) % 256 if i % 3 else 0 for i in range(n))
            pad = b"\x00" * (n - 1)
            return [(full, same(full)), (b"\xff" * n, same(b"\xff" * n)), (b"\x01" * (n + 1), ValueError),
                    (5, TypeError), (1.5, TypeError), (None, TypeError), (self.foreign, TypeError),
                    ("7", same(b"7" + pad) if text else TypeError),
                    # A list of byte values: 0 to 255, and the negative ones for signed characters.
                    ([low, 255] + [0] * (n - 2), same(bytes([low & 0xFF, 255]) + b"\x00" * (n - 2))),
                    ([256], OverflowError), ([low - 1], OverflowError), ([0] * (n + 1), ValueError),
                    ([1.5], self.float_in_list(255) or same(b"\x01" + pad))]
        if kind[0] == "list":
            return self.list_values(kind[1], cls, member)
        if kind[0] == "record":
            # The class the member reads back as (a typedef's alias class, maybe): the one it takes.
            target = type(getattr(cls(), member))
            sample = target()
            ctypes.memset(sample.getPtr(), 0x5A, type(sample)._ctkgen_size)
            raw = ctypes.string_at(sample.getPtr(), type(sample)._ctkgen_size)
            other = next(c for n, c in sorted(self.registry.items()) if not issubclass(c, target) and not issubclass(target, c))()
            return [(sample, lambda got: ctypes.string_at(got.getPtr(), len(raw)) == raw), (other, TypeError),
                    (None, TypeError), (5, TypeError), (b"7", TypeError)]
        if kind[0] == "array":
            element, n = kind[1], kind[2]
            out = []
            if element[0] == "int":
                bits, signed = element[1], element[2]
                lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
                out += [([lo] * n, lambda got, v=lo: [as_int(g) for g in got] == [v] * n),
                        ([hi] * n, lambda got, v=hi: [as_int(g) for g in got] == [v] * n),
                        ([hi] * (n - 1) + [hi + 1], OverflowError), ([lo] * (n - 1) + [lo - 1], OverflowError),
                        ([1.5] * n, self.float_in_list(hi) or (lambda got: [as_int(g) for g in got] == [1] * n)),
                        (["7"] * n, TypeError), ([None] * n, TypeError)]
            elif element[0] == "handle":
                top = (1 << POINTER_BITS) - 1
                out += [([top] * n, lambda got, v=top: [as_int(g) for g in got] == [v] * n),
                        ([0] * (n - 1) + [-1], OverflowError), (["7"] * n, TypeError)]
            elif element[0] == "float":
                out += [([1.5] * n, lambda got: got == [1.5] * n), (["7"] * n, TypeError)]
            elif element[0] == "record":
                # The class the items read back as (a typedef's alias class, maybe): the one they take.
                target = type(getattr(cls(), member)[0])
                out += [([target() for _ in range(n)], lambda got: len(got) == n), ([self.foreign] * n, TypeError)]
            out += [(5, TypeError), (1.5, TypeError), (None, TypeError), (self.foreign, TypeError),
                    ([0] * (n + 1), ValueError)]
            return out
        if kind[0] == "opaque":
            return [(5, TypeError), (1.5, TypeError), (None, TypeError), (self.foreign, TypeError)]
        return []

    def list_values(self, element, cls, member):
        """A pointer member counted by a sibling: a list of elements. An int is an address the
        caller owns (only 0 is read back here: any other would be read as an array)."""
        empty = lambda got: got == []  # noqa: E731
        out = [([], empty), (None, empty), (0, empty), (1.5, TypeError), ("7", TypeError), (b"7", TypeError),
               (self.foreign, TypeError)]
        if element is None:
            return out
        if element[0] == "int":
            bits, signed = element[1], element[2]
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            out += [([lo, hi, lo], lambda got, v=[lo, hi, lo]: [as_int(g) for g in got] == v),
                    ([lo, hi + 1], OverflowError), ([lo - 1], OverflowError),
                    ([lo, 1.5], self.float_in_list(hi) or (lambda got, v=[lo, 1]: [as_int(g) for g in got] == v)),
                    ([None], TypeError), ([self.foreign], TypeError)]
        elif element[0] == "handle":
            top = (1 << POINTER_BITS) - 1
            out += [([top, 0], lambda got: [as_int(g) for g in got] == [top, 0]), ([0, -1], OverflowError),
                    ([top + 1], OverflowError), (["7"], TypeError), ([self.foreign], TypeError)]
        elif element[0] == "record":
            target = self.registry.get(element[1]) or self.class_of_record(element[1])
            if target is not None:
                size = target._ctkgen_size
                samples = []
                for fill in (0x5A, 0x3C):
                    sample = target()
                    ctypes.memset(sample.getPtr(), fill, size)
                    samples.append(sample)
                raws = [ctypes.string_at(s.getPtr(), size) for s in samples]
                out += [(samples, lambda got: [ctypes.string_at(g.getPtr(), size) for g in got] == raws),
                        ([samples[0], self.foreign], TypeError), ([None], TypeError), ([5], TypeError)]
        return out

    def class_of_record(self, name):
        r = self.records.get(name)
        if r and r.get("typedef_name") in self.registry:
            return self.registry[r["typedef_name"]]
        return None

    # -- sweeps --------------------------------------------------------------------------------
    def sweep_members(self):
        seen = set()
        for name, cls in sorted(self.registry.items()):
            # The registry is the package's: another library's records are its sweep's.
            if not cls.__module__.rsplit(".", 1)[-1].startswith(f"_{self.module}_"):
                continue
            record = self.record_of(cls)
            if record is None:
                self.failures.append(f"{name}: no record in the IR")
                continue
            # An alias class inherits its base's members: the same code, swept once.
            if record["name"] in seen:
                continue
            seen.add(record["name"])
            types = dict(self.fields(record))
            size = cls._ctkgen_size
            for member in cls._ctkgen_members:
                ty = types.get(member)
                kind = self.kind(ty) if ty is not None else None
                if kind is None:
                    self.failures.append(f"{name}.{member}: no type in the IR")
                    continue
                if kind[0] == "pointer" and isinstance(getattr(cls(), member), list):
                    kind = ("list", self.kind(ty["pointee"]) if ty["kind"] == "pointer" else None)
                values = self.member_values(kind, cls, member, self.has_scalar_class(ty))
                self.paths["member"] = self.paths.get("member", 0) + 1
                for value, expect in values:
                    obj = cls()
                    # A recognisable pattern, so an unchanged storage is not merely zeros.
                    ctypes.memset(obj.getPtr(), 0xA5, size)
                    if kind[0] == "list":
                        # A list member starts empty (NULL and a count of 0): with no array, the
                        # getter reads its count's worth of zero elements, and the pattern's count
                        # would be billions.
                        setattr(obj, member, [])
                    self.attempt("member", f"{name}.{member}", value, lambda v: setattr(obj, member, v),
                                 lambda: getattr(obj, member), lambda: ctypes.string_at(obj.getPtr(), size), expect)

    def sweep_constructors(self):
        types = next((m for m in self.modules if m.__name__.endswith(f"._{self.module}_types")), None)
        wrappers = (self.base._Handle, self.base._Scalar)
        for name in sorted(self.typedefs):
            cls = getattr(types, name, None)
            # Handle and scalar classes; the module also holds record aliases of another library's record.
            if not isinstance(cls, type) or not issubclass(cls, wrappers):
                continue
            kind = self.kind({"kind": "typedef", "name": name})
            if kind is None:
                continue
            values = self.int_values(kind[1], kind[2]) if kind[0] == "int" else self.handle_values(False)
            self.paths["constructor"] = self.paths.get("constructor", 0) + 1
            for value, expect in values:
                holder = {}
                self.attempt("constructor", name, value, lambda v: holder.__setitem__("obj", cls(v)),
                             lambda: holder["obj"], lambda: None, expect)

    def sweep_functions(self):
        if self.fake is None:
            return
        # The fake's entry points with a behaviour of their own trust their arguments (counts,
        # lists), as a driver may: hostile values there test the fake, not the binding.
        special = set()
        if self.module == "driver":
            source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_driver", "fake_libcuda.c")
            with open(source) as f:
                special = set(re.findall(r'strcmp\(symbol, "(\w+)"\)', f.read()))
        functions = {}
        for module in self.modules:
            if f"._{self.module}_functions" in module.__name__:
                functions.update({n: getattr(module, n) for n in dir(module) if not n.startswith("_")})
        for function in self.ir["functions"]:
            wrapper = functions.get(function["name"])
            if wrapper is None or function["name"] in special or function["name"].rsplit("_v", 1)[0] in special:
                continue
            code = getattr(wrapper, "__code__", None)
            if code is None:
                self.failures.append(f"{function['name']}: no argument names")
                continue
            arg_names = list(code.co_varnames[:code.co_argcount])
            params = {p["name"]: p for p in function["params"]}
            c_params = {arg: self.c_param(arg, params) for arg in arg_names}
            # Integer-class position of each C parameter (floats travel apart); by-value records
            # make positions unknowable, and only the first six are recorded.
            positions, position, exact = {}, 0, True
            for p in function["params"]:
                kind = self.kind(p["ty"])
                if kind and kind[0] == "record":
                    exact = False
                if kind and kind[0] == "float":
                    continue
                positions[p["name"]] = position if exact and position < 6 else None
                position += 1
            neutral = {}
            for arg in arg_names:
                p = c_params[arg]
                kind = self.kind(p["ty"]) if p else None
                if kind and kind[0] == "int":
                    # An enum's first value: 0 may name no member, and a selector must name one
                    # for the values it types to be reached.
                    first = self.first_enumerator(p["ty"])
                    neutral[arg] = 0 if first is None else first
                elif kind and kind[0] == "float":
                    neutral[arg] = 0.0
                elif kind and kind[0] == "record":
                    # A typedef'd record takes an instance of the typedef's own class.
                    cls = (self.registry.get(p["ty"].get("name")) or self.registry.get(kind[1])
                           or self.class_of_record(kind[1]))
                    neutral[arg] = cls() if cls else None
                else:
                    neutral[arg] = None
            # In/out values are pointers in C but ints in Python: an argument refused as None
            # gets 0 instead. A function that refuses its neutral arguments is listed as skipped.
            for _ in range(len(arg_names)):
                try:
                    wrapper(*neutral.values())
                    break
                except TypeError as error:
                    refused = [a for a in arg_names if f": {a} " in f"{error} " and neutral[a] is None]
                    if not refused:
                        break
                    neutral[refused[0]] = 0
                except Exception:  # noqa: BLE001
                    break
            for arg in arg_names:
                p = c_params[arg]
                kind = self.kind(p["ty"]) if p else None
                if not kind or kind[0] not in ("int", "handle"):
                    continue
                values = self.int_values(kind[1], kind[2]) if kind[0] == "int" else self.handle_values(True)
                bits = kind[1] if kind[0] == "int" else POINTER_BITS
                self.paths["argument"] = self.paths.get("argument", 0) + 1
                for value, expect in values:
                    self.call(function["name"], wrapper, arg, neutral, value, expect, positions.get(p["name"]), bits)

    def call(self, fname, wrapper, arg, neutral, value, expect, position, bits):
        before = self.fake.fake_recorded_generic_calls()
        args = dict(neutral)
        args[arg] = value
        try:
            wrapper(*args.values())
        except Exception as error:  # noqa: BLE001
            if callable(expect) and not isinstance(expect, type):
                # A count or length in range of its C type that the wrapper cannot honour (a
                # negative length, an output array too large to allocate) is refused before the
                # call: nothing is stored, so it is no corruption; counted apart.
                # A selector value that types no value here (typed values) is refused alike.
                unsupported = isinstance(error, TypeError) and str(error).endswith("is not supported")
                # A count beyond its list, which the callee would read past (the compatible
                # module's RuntimeError), is refused alike.
                too_long = isinstance(error, RuntimeError) and str(error).startswith("List is too small")
                # Another argument refused (its neutral value does not suit the value this one
                # selects, such as a typed value's selector): this one was taken.
                other = isinstance(error, TypeError) and any(f": {a} " in f"{error} " for a in args if a != arg)
                if (isinstance(error, (ValueError, MemoryError)) or unsupported or too_long or other) \
                        and self.fake.fake_recorded_generic_calls() == before:
                    self.refused.append(f"{fname}({arg}) {value!r}: {type(error).__name__}")
                    return self.note("argument", f"{fname}({arg})", value, None)
                return self.note("argument", f"{fname}({arg})", value, f"raised {type(error).__name__}: {error}")
            problem = None if isinstance(error, expect) else f"raised {type(error).__name__} ({error}), expected {expect}"
            if problem is None and self.fake.fake_recorded_generic_calls() != before:
                problem = "raised, but the driver was called"
            return self.note("argument", f"{fname}({arg})", value, problem)
        if not callable(expect) or isinstance(expect, type):
            return self.note("argument", f"{fname}({arg})", value, f"accepted, expected {expect}")
        problem = None
        if position is not None and self.fake.fake_recorded_generic_calls() != before:
            mask = (1 << bits) - 1
            received = self.fake.fake_recorded_arg(position) & mask
            wanted = (0 if value is None else as_int(value)) & mask
            if received != wanted:
                problem = f"the driver received {received:#x}"
        self.note("argument", f"{fname}({arg})", value, problem)


def renamed_parameters(module):
    """{Python name: C name} for the parameters the description of the library whose Python
    module is `module` spells otherwise (`parameter_names`)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "headers", "libraries")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".toml") and name.count(".") == 1:
            with open(os.path.join(folder, name), "rb") as f:
                python = tomllib.load(f).get("python", {})
            if python.get("module") == module:
                return {spelled: c for c, spelled in python.get("parameter_names", {}).items()}
    return {}


def as_int(value):
    return int(value) if value is not None else None


def safe(read):
    try:
        return read()
    except Exception as error:  # noqa: BLE001
        return f"<{type(error).__name__}>"


def main():
    ir_path, package = sys.argv[1], sys.argv[2]
    fake = None
    if len(sys.argv) > 3:
        fake = ctypes.CDLL(sys.argv[3])
        fake.fake_recorded_arg.restype = ctypes.c_ulonglong
        fake.fake_recorded_arg.argtypes = [ctypes.c_uint]
        fake.fake_recorded_generic_calls.restype = ctypes.c_ulong
    with open(ir_path) as f:
        ir = json.load(f)
    sweep = Sweep(ir, package, fake)
    if sweep.strict != sweep.base._STRICT_INTEGERS:
        sys.exit(f"the package was generated with strict integers {sweep.base._STRICT_INTEGERS}, "
                 f"the sweep was asked for {sweep.strict}")
    sweep.sweep_constructors()
    sweep.sweep_members()
    sweep.sweep_functions()
    print(json.dumps({"paths": sweep.paths, "values": sweep.values, "failures": sweep.failures,
                      "refused": sweep.refused}))


if __name__ == "__main__":
    main()
