"""Exercises every generated record class: construct, get and set every member, repr, copy,
construct from an address, nested views. Run in a subprocess against a sanitizer build:
any undefined behaviour aborts the interpreter."""
import copy
import sys


def exercise_object(obj, depth=0):
    cls = type(obj)
    assert obj.getPtr() % cls._ctkgen_align == 0, (cls.__name__, obj.getPtr())
    for name in cls._ctkgen_members:
        value = getattr(obj, name)
        if depth < 3 and hasattr(value, "_ctkgen_members"):
            exercise_object(value, depth + 1)
        if isinstance(value, list):
            for item in value:
                if depth < 3 and hasattr(item, "_ctkgen_members"):
                    exercise_object(item, depth + 1)
        setattr(obj, name, value)
    repr(obj)


def exercise_class(cls):
    obj = cls()
    exercise_object(obj)
    twin = copy.copy(obj)
    assert type(twin) is cls and twin.getPtr() != obj.getPtr()
    view = cls(_ptr=obj.getPtr())
    exercise_object(view)
    if cls._ctkgen_align > 1:
        try:
            cls(_ptr=obj.getPtr() + 1)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{cls.__name__} accepted a misaligned address")


def main(module, only=None):
    base = __import__(f"{module}._base", fromlist=["_class_registry"])
    if only is None:
        __import__(f"{module}.driver")
    else:
        __import__(f"{module}.{only[0]}")
    names = sorted(base._class_registry) if only is None or len(only) < 2 else only[1:]
    for name in names:
        exercise_class(base._class_registry[name])
    print(f"exercised {len(names)} classes")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or None)
