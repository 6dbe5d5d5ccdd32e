"""Cases for both_modules.py: every named record of one library, filled member by member with the
same values on ours and on the official module, compared as the bytes the C struct holds.

The value of each member comes from the IR (its C type), so both modules are given the same
thing: an int, an enum member, a handle or wrapper object, bytes, a list, or a record. Each record
is filled three ways: through nested views (`outer.inner.x = 1`), by assigning records built apart
(`outer.inner = made`, the source changed afterwards), and by writing each member twice (a value,
then the final one). A member one module refuses is reported as that module's error, and its
bytes are left out of the comparison on both sides; everything else must be byte-identical.

Environment: CTKGEN_RECORD_BYTES_MODULE (`driver`, `runtime`), CTKGEN_RECORD_BYTES_IR (the IR
JSON of that library)."""
import ctypes
import importlib
import json
import os
import zlib

MODULE = os.environ.get("CTKGEN_RECORD_BYTES_MODULE", "driver")

PRIMITIVE_BITS = {
    "char": 8, "signed_char": 8, "unsigned_char": 8, "short": 16, "unsigned_short": 16, "int": 32,
    "unsigned_int": 32, "long": 64, "unsigned_long": 64, "long_long": 64, "unsigned_long_long": 64, "bool": 1,
}
SIZED = {"size_t": 64, "ssize_t": 64, "uintptr_t": 64, "intptr_t": 64, "uint8_t": 8, "uint16_t": 16,
         "uint32_t": 32, "uint64_t": 64, "int8_t": 8, "int16_t": 16, "int32_t": 32, "int64_t": 64}


class Filler:
    def __init__(self, module, ir):
        self.module = module
        self.typedefs = {t["name"]: t for t in ir["typedefs"]}
        self.enums = {e["name"]: e for e in ir["enums"]}
        self.records = {r["name"]: r for r in ir["records"]}
        # Where a record's members come from, by their offsets: masked when a module refused.
        self.refused = {}
        # Pointer members set from a list: [offset, bytes of elements], compared by what they point at.
        self.lists = {}

    def resolve(self, ty):
        """(type, typedef name it was reached through or None), typedefs followed to the end."""
        via = None
        while ty["kind"] == "typedef" and ty["name"] in self.typedefs:
            via = via or ty["name"]
            inner = self.typedefs[ty["name"]]["ty"]
            if inner["kind"] == "pointer":
                return inner, ty["name"]  # a handle: its own class
            ty = inner
        return ty, via

    def named(self, name):
        """A public object of the module (or of a sibling module it re-uses)."""
        return getattr(self.module, name, None) if name else None

    @staticmethod
    def seed(path):
        return zlib.crc32(path.encode())

    def value(self, ty, path, bit_width=None, second=False):
        """The value written for a member of type `ty` at `path`; `second` gives another one."""
        seed = self.seed(path) + (7 if second else 0)
        if ty["kind"] == "typedef" and ty["name"] in SIZED and ty["name"] not in self.typedefs:
            return self.int_value(SIZED[ty["name"]], seed, bit_width)
        resolved, via = self.resolve(ty)
        kind = resolved["kind"]
        if kind == "primitive":
            if resolved["name"] in ("float", "double"):
                return 0.5 + seed % 10
            if resolved["name"] in PRIMITIVE_BITS:
                value = self.int_value(PRIMITIVE_BITS[resolved["name"]], seed, bit_width)
                cls = self.named(via)
                return cls(value) if cls is not None and hasattr(cls, "getPtr") else value
            return None
        if kind == "typedef":  # a builtin typedef reached through the header's own
            return self.int_value(SIZED.get(resolved["name"], 32), seed, bit_width)
        if kind == "enum":
            enum = self.enums.get(resolved["name"])
            members = enum["constants"] if enum else []
            if not members:
                return None
            chosen = members[(seed % len(members))]
            names = [via, resolved["name"], *(enum.get("typedef_names") or [])]
            cls = next((self.named(n) for n in names if self.named(n) is not None), None)
            try:
                return cls(chosen["value"]) if cls is not None else chosen["value"]
            except Exception:  # noqa: BLE001 (an alias value its class does not list)
                return chosen["value"]
        if kind == "pointer":
            address = 0x7F0000100000 + (seed % 0x1000) * 16
            cls = self.named(via)
            return cls(address) if cls is not None and via is not None else address
        if kind == "array":
            element, _ = self.resolve(resolved["element"])
            if element["kind"] == "primitive" and element["name"] in ("char", "signed_char", "unsigned_char"):
                n = resolved["len"]
                return bytes(97 + (seed + i) % 26 for i in range(max(n - 1, 0)))
            if element["kind"] == "record":
                return None  # filled element by element through the list's views
            items = [self.value(resolved["element"], f"{path}[{i}]", second=second) for i in range(resolved["len"])]
            return None if any(i is None for i in items) else items
        return None

    @staticmethod
    def int_value(bits, seed, bit_width):
        if bit_width:
            bits = min(bits, bit_width)
        if bits <= 1:
            return 1
        return 1 + seed % min(2 ** (bits - 1) - 1, 100_000)

    def fill(self, obj, record, path, base_bits, how):
        """Writes every member of `obj` (a record of IR `record`) the way `how` says. Pointer
        members go first: a list sets its count member in ours, which the count written after it
        then overwrites, as a program setting both ends with the count it wrote."""
        pointers_first = sorted(record["fields"], key=lambda f: self.resolve(f["ty"])[0]["kind"] != "pointer")
        for field in pointers_first:
            name, ty = field["name"], field["ty"]
            where = f"{path}.{name}"
            offset = base_bits + field["offset_bits"]
            if not name or not hasattr(obj, name):
                # A member this module does not expose: its bytes are not compared.
                self.refused[where] = ["absent", offset // 8, field.get("size") or 0]
                continue
            resolved, _ = self.resolve(ty)
            if resolved["kind"] == "record" and resolved["name"] in self.records:
                inner = self.records[resolved["name"]]
                if how == "assign" and path.count(".") == 0:
                    self.assign_made(obj, name, inner, where, offset)
                else:
                    self.attempt(where, offset, field, lambda: self.fill(getattr(obj, name), inner, where, offset, how))
                continue
            if resolved["kind"] == "array" and self.resolve(resolved["element"])[0]["kind"] == "record":
                inner = self.records.get(self.resolve(resolved["element"])[0]["name"])
                if inner is None:
                    continue
                step = inner["size"] * 8

                def assign_items(name=name, inner=inner, where=where, offset=offset, step=step):
                    # As programs for cuda.bindings write them: a list of records built apart.
                    items = []
                    for i, item in enumerate(getattr(obj, name)):
                        made = type(item)()
                        self.fill(made, inner, f"{where}[{i}]", offset + i * step, "views")
                        items.append(made)
                    setattr(obj, name, items)
                self.attempt(where, offset, field, assign_items)
                continue
            value = self.value(ty, where, field.get("bit_width"))
            if value is None:
                continue
            listed = self.list_value(resolved, where) if resolved["kind"] == "pointer" else None
            if listed is not None:
                # Pointer members take an address, or a list the record then owns: each module
                # writes every form it takes, the list last, and the list is compared by content.
                self.attempt(where + " (address)", offset, field, lambda v=value: setattr(obj, name, v))
                self.attempt(where, offset, field, lambda v=listed: self.set_list(obj, name, v, where, offset))
                continue
            if how == "twice":
                first = self.value(ty, where, field.get("bit_width"), second=True)
                if first is not None:
                    self.attempt(where + " (first)", offset, field, lambda v=first: setattr(obj, name, v))
            self.attempt(where, offset, field, lambda v=value: self.set_member(obj, name, v))

    def list_value(self, pointer, where):
        """(two elements, element size) for a pointer to records, handles or integers, else None.
        Elements of a list hold addresses only: a record may point at its own kind."""
        if "[" in where:
            return None
        element, via = self.resolve(pointer["pointee"])
        if element["kind"] == "record" and element["name"] in self.records:
            inner = self.records[element["name"]]
            cls = next((self.named(n) for n in (inner.get("typedef_name"), inner["name"]) if self.named(n) is not None),
                       None)
            if cls is None or not inner["fields"]:
                return None
            items = []
            for i in range(2):
                made = cls()
                self.fill(made, inner, f"{where}[{i}]", 0, "views")
                items.append(made)
            return items, inner["size"]
        if element["kind"] == "pointer" and via is not None:
            return [self.value(pointer["pointee"], f"{where}[{i}]") for i in range(2)], 8
        if element["kind"] == "primitive" and element["name"] in PRIMITIVE_BITS and element["name"] not in ("char", "bool"):
            bits = PRIMITIVE_BITS[element["name"]]
            return [self.int_value(bits, self.seed(f"{where}[{i}]"), None) for i in range(2)], bits // 8
        return None

    def set_list(self, obj, name, listed, where, offset_bits):
        items, size = listed
        setattr(obj, name, items)
        self.lists[where] = [offset_bits // 8, len(items) * size]

    def set_member(self, obj, name, value):
        try:
            setattr(obj, name, value)
        except TypeError:
            if not isinstance(value, bytes):
                raise
            setattr(obj, name, value.decode())  # a char array the module takes as str

    def assign_made(self, obj, name, inner, where, offset):
        """`outer.inner = made`: a record built apart, filled, assigned, then changed; the outer
        record must hold the values it had when assigned."""
        def action():
            made = type(getattr(obj, name))()
            self.fill(made, inner, where, offset, "views")
            setattr(obj, name, made)
            ctypes.memset(made.getPtr(), 0xA5, inner["size"])
        self.attempt(where, offset, {"size": inner["size"]}, action)

    def attempt(self, where, offset_bits, field, action):
        try:
            action()
        except Exception as error:  # noqa: BLE001 (a refusal is a finding, compared across modules)
            self.refused[where] = [type(error).__name__, offset_bits // 8, field.get("size") or 0]


def bytes_of(obj, size):
    return ctypes.string_at(obj.getPtr(), size)


def case_every_record(m):
    with open(os.environ["CTKGEN_RECORD_BYTES_IR"]) as f:
        ir = json.load(f)
    out = {}
    for record in ir["records"]:
        if record["parent"] is not None or not record["complete"] or not record["fields"]:
            continue
        names = [n for n in (record["name"], record.get("typedef_name")) if n]
        cls = next((getattr(m, n) for n in names if isinstance(getattr(m, n, None), type)), None)
        if cls is None:
            continue
        for how in ("views", "assign", "twice"):
            filler = Filler(m, ir)
            try:
                obj = cls()
            except Exception as error:  # noqa: BLE001
                out[f"{record['name']} {how}"] = {"construct": type(error).__name__}
                continue
            filler.fill(obj, record, record["name"], 0, how)
            pointees = {}
            for where, (offset, size) in filler.lists.items():
                address = ctypes.c_void_p.from_address(obj.getPtr() + offset).value
                pointees[where] = [offset, None if not address else ctypes.string_at(address, size).hex()]
            out[f"{record['name']} {how}"] = {"bytes": bytes_of(obj, record["size"]).hex(), "refused": filler.refused,
                                              "lists": pointees}
    return out


