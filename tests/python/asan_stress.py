"""Lifecycle stress of the generated record classes, run in a subprocess against an ASan +
UBSan build: any use after free, double free, overflow or misaligned access aborts it.

    python asan_stress.py <package> <record module> [<record module> ...]

Phases: nested views that outlive their parent; wrappers over foreign memory; repeated member
set and get; a million objects; objects and views released from several threads."""
import ctypes
import gc
import importlib
import random
import sys
import threading

TOTAL_OBJECTS = 1_000_000


def classes(package, modules):
    for module in modules:
        importlib.import_module(f"{package}.{module}")
    registry = importlib.import_module(f"{package}._base")._class_registry
    return [registry[name] for name in sorted(registry)]


def touch(obj, depth=0):
    """Reads and writes back every member, descending into nested records."""
    cls = type(obj)
    assert obj.getPtr() % cls._ctkgen_align == 0, (cls.__name__, obj.getPtr())
    for name in cls._ctkgen_members:
        value = getattr(obj, name)
        if depth < 2 and hasattr(value, "_ctkgen_members"):
            touch(value, depth + 1)
        elif depth < 2 and isinstance(value, list):
            for item in value[:4]:
                if hasattr(item, "_ctkgen_members"):
                    touch(item, depth + 1)
        setattr(obj, name, value)


def nested_views(obj):
    """Every record-valued member (and record array element) of `obj`."""
    views = []
    for name in type(obj)._ctkgen_members:
        value = getattr(obj, name)
        if hasattr(value, "_ctkgen_members"):
            views.append(value)
        elif isinstance(value, list):
            views.extend(item for item in value if hasattr(item, "_ctkgen_members"))
    return views


def views_outlive_parents(all_classes):
    count = 0
    for cls in all_classes:
        parent = cls()
        views = nested_views(parent)
        # Views of views: the innermost must keep the whole chain alive.
        views += [inner for view in views for inner in nested_views(view)]
        del parent
        gc.collect()
        for view in views:
            touch(view)
            count += 1
    return count


def aligned_buffer(size, alignment):
    raw = ctypes.create_string_buffer(size + alignment)
    address = ctypes.addressof(raw)
    return raw, address + (-address) % alignment


def foreign_wrappers(all_classes):
    count = 0
    for cls in all_classes:
        raw, address = aligned_buffer(cls._ctkgen_size, cls._ctkgen_align)
        for _ in range(20):
            wrapper = cls(_ptr=address)
            assert wrapper.getPtr() == address
            touch(wrapper)
            for view in nested_views(wrapper):
                touch(view)
            del wrapper
            count += 1
        if cls._ctkgen_align > 1:
            try:
                cls(_ptr=address + 1)
            except ValueError:
                pass
            else:
                raise AssertionError(f"{cls.__name__} wrapped a misaligned address")
        del raw
    return count


def repeated_members(all_classes, rounds=50):
    count = 0
    for cls in all_classes:
        obj = cls()
        for _ in range(rounds):
            for name in cls._ctkgen_members:
                setattr(obj, name, getattr(obj, name))
                count += 1
        twin = obj.__copy__()
        del obj
        touch(twin)
    return count


def many_objects(all_classes, total=TOTAL_OBJECTS):
    ring = [None] * 1024
    for i in range(total):
        obj = all_classes[i % len(all_classes)]()
        if i % 97 == 0:
            views = nested_views(obj)
            if views:
                obj = views[-1]
        ring[i % len(ring)] = obj
    return total


def released_from_threads(all_classes, threads=8, per_thread=2000):
    rng = random.Random(1)
    barrier = threading.Barrier(threads)
    batches = []
    for _ in range(threads):
        batch = []
        for _ in range(per_thread):
            obj = rng.choice(all_classes)()
            batch.append(obj)
            batch.extend(nested_views(obj)[:2])
        batches.append(batch)
    errors = []

    def release(batch, seed):
        try:
            local = random.Random(seed)
            barrier.wait()
            while batch:
                obj = batch.pop(local.randrange(len(batch)))
                if local.random() < 0.3:
                    touch(obj)
                del obj
                if local.random() < 0.1:
                    fresh = local.choice(all_classes)()
                    for view in nested_views(fresh):
                        touch(view)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    workers = [threading.Thread(target=release, args=(batch, seed)) for seed, batch in enumerate(batches)]
    # The creating thread lets go of everything: the workers hold the last references.
    batches = None
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return threads * per_thread


def main(package, modules):
    all_classes = classes(package, modules)
    assert all_classes, "no record classes"
    over_aligned = [c for c in all_classes if c._ctkgen_align > 16]
    print(f"{len(all_classes)} classes, {len(over_aligned)} over-aligned")
    for phase in (views_outlive_parents, foreign_wrappers, repeated_members, many_objects, released_from_threads):
        print(f"{phase.__name__}: {phase(all_classes)}", flush=True)
    print("stress clean")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
