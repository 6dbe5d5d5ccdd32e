"""`utils` (and `_internal.utils`) calls run on ours and on an official cuda.bindings release, in one
process, on CPU (no driver; libNVVM of the CTK from its wheel on sys.path, when the run puts it
there). Run by test_utils_official.py through both_modules.py, which prints `{case: {"ours": ...,
"official": ...}}`; each case takes one side's `utils` module and reaches the package's other
modules through its name, so the same code runs on both."""
import contextlib
import importlib
import os
import sys

MODULE = "utils"

# The library modules whose handle classes the registry is read for.
LIBRARY_MODULES = ("driver", "runtime", "nvrtc")
OPTIONS_MODULE = "nvvm"


def package(u):
    return u.__name__.rsplit(".", 1)[0]


def sibling(u, name):
    return importlib.import_module(f"{package(u)}.{name}")


def outcome(function, *args):
    """What a call gives: ["ok", value] or [exception class name, message]."""
    try:
        return ["ok", function(*args)]
    except Exception as error:  # noqa: BLE001 (every outcome is compared)
        return [type(error).__name__, str(error)]


def registered(u):
    """{"module.Name": class} of every public class of the library modules that is a key of the
    registry the native-handle function dispatches on."""
    out = {}
    for name in LIBRARY_MODULES:
        module = sibling(u, name)
        for attribute, value in vars(module).items():
            if isinstance(value, type) and not attribute.startswith("_") and value in u._handle_getters:
                out[f"{name}.{attribute}"] = value
    return out


# ---- native handles -----------------------------------------------------------------------

def case_registered_handle_classes(u):
    return sorted(registered(u))


def case_handle_values(u):
    """Each registered class's object of 0x5A5A gives 0x5A5A; the getter's own answer too."""
    return {key: [u.get_cuda_native_handle(cls(0x5A5A)), u._handle_getters[cls](cls(0x5A5A))]
            for key, cls in registered(u).items()}


def case_unknown_objects(u):
    """Objects of no registered class: the official test's tuple, list, dict and None, and more."""
    return [outcome(u.get_cuda_native_handle, obj) for obj in ((1, 2, 3, 4), [5, 6], {}, None, 5, 2.5, "x", b"x")]


def case_a_record_is_no_handle(u):
    kind, message = outcome(u.get_cuda_native_handle, sibling(u, "driver").CUuuid_st())
    return [kind, message.split(".")[-1]]


def case_a_subclass_of_a_handle_class_is_unknown(u):
    """The registry is keyed by class: a Python subclass of a registered class is not in it."""
    stream = sibling(u, "driver").CUstream

    class Mine(stream):
        pass

    kind, message = outcome(u.get_cuda_native_handle, Mine(7))
    return [u.get_cuda_native_handle(stream(7)), kind, message.split(".")[-1]]


@contextlib.contextmanager
def added(u, cls, getter):
    answer = u._add_cuda_native_handle_getter(cls, getter)
    try:
        yield answer
    finally:
        del u._handle_getters[cls]


def case_a_class_added_with_its_getter(u):
    class Own:
        value = 41

    with added(u, Own, lambda obj: obj.value + 1) as answer:
        return [answer, u.get_cuda_native_handle(Own()), u._handle_getters[Own](Own())]


def case_any_class_may_be_added(u):
    with added(u, int, lambda obj: obj * 2):
        return u.get_cuda_native_handle(21)


def case_a_getter_raising_key_error(u):
    """The official test: an error of a registered class's getter is that error, not an unknown
    class (13.4 and later; earlier releases said TypeError)."""
    class Own:
        pass

    def getter(obj):
        raise KeyError("inside the getter")

    with added(u, Own, getter):
        return outcome(u.get_cuda_native_handle, Own())


def case_the_registry_is_a_dict(u):
    return [type(u._handle_getters).__name__, all(callable(g) for g in u._handle_getters.values())]


# ---- the environment switch --------------------------------------------------------------

SWITCH = "CTKGEN_TEST_UTILS_SWITCH"
TEXTS = [None, "", "   ", "1", "0", "true", "TRUE", "False", "yes", "No", "on", "OFF", " on ", "\tyes\n", "2", "-1",
         "-0", "00", "010", "0x10", "0x0", "0o7", "0b0", "1_000", "+3", "1.0", "0.0", "abc", "y", "n", "١"]


def case_env_flag(u):
    out = []
    for text in TEXTS:
        if text is None:
            os.environ.pop(SWITCH, None)
        else:
            os.environ[SWITCH] = text
        out.append([text, outcome(u.envvar_bool, SWITCH), outcome(u.envvar_bool, SWITCH, True),
                    outcome(lambda: u.envvar_bool(SWITCH, default=None))])
    os.environ.pop(SWITCH, None)
    return out


# ---- the NVVM option check ----------------------------------------------------------------

OPTION_SETS = [["-arch=compute_90"], [], ["-arch=compute_90", "-opt=3", "-g"], ["--this-is-not-a-valid-option"],
               ["-arch=compute_99999"], ("-arch=compute_90",), ["-arch=compute_100"], ["-opt=9"], ["-opt=0", "-g"],
               ["-arch=compute_90", "-arch=compute_80"], ["-ftz=1", "-prec-sqrt=0", "-prec-div=0", "-fma=1"],
               ["-gen-lto"], "-g", [b"-arch=compute_90"], None]
# Not asked: an int item, which both sides take as the address of a C string.


def case_option_check(u):
    return [[repr(options), outcome(u.check_nvvm_compiler_options, options)] for options in OPTION_SETS]


def case_option_check_twice_in_a_row(u):
    """The program is destroyed each time: a refused set does not spoil the next question."""
    check = u.check_nvvm_compiler_options
    return [check(["-arch=compute_99999"]), check(["-arch=compute_90"]), check(["--bad"]), check([])]


class _Refused:
    """A finder that fails the import of one module with the error given."""

    def __init__(self, name, error):
        self.name, self.error = name, error

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name:
            raise self.error
        return None


@contextlib.contextmanager
def unimportable(u, module, error):
    """`<package>.<module>` cannot be imported (`error` is raised) and is not imported yet."""
    name = f"{package(u)}.{module}"
    parent = sys.modules[package(u)]
    saved_module = sys.modules.pop(name, None)
    saved_attribute = parent.__dict__.pop(module, None)
    finder = _Refused(name, error)
    sys.meta_path.insert(0, finder)
    try:
        yield name
    finally:
        sys.meta_path.remove(finder)
        if saved_module is not None:
            sys.modules[name] = saved_module
        if saved_attribute is not None:
            setattr(parent, module, saved_attribute)


def case_option_check_without_the_module(u):
    """The package has no nvvm module (a package generated without it, a source tree not built)."""
    name = f"{package(u)}.{OPTIONS_MODULE}"
    with unimportable(u, OPTIONS_MODULE, ModuleNotFoundError(f"No module named {name!r}", name=name)):
        return outcome(u.check_nvvm_compiler_options, ["-arch=compute_90"])


def case_option_check_with_a_dependency_missing(u):
    """Only the module itself may be missing: another missing module is the error it is."""
    error = ModuleNotFoundError("No module named 'not_a_real_dependency'", name="not_a_real_dependency")
    with unimportable(u, OPTIONS_MODULE, error):
        return outcome(u.check_nvvm_compiler_options, ["-arch=compute_90"])


# ---- _internal.utils ----------------------------------------------------------------------

def case_c_compiler(u):
    compiler = sibling(u, "_internal.utils").get_c_compiler()
    return [compiler, sum(compiler.startswith(p) for p in ("GCC", "Clang", "MSVC", "Unknown"))]
