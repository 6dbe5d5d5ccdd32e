"""The NVVM option check with no libNVVM anywhere the two sides look (test_utils_official.py runs it
through both_modules.py with nothing but the two packages on the path)."""
import importlib

MODULE = "utils"


def case_option_check_without_the_library(u):
    try:
        return ["ok", u.check_nvvm_compiler_options(["-arch=compute_90"])]
    except Exception as error:  # noqa: BLE001
        return [type(error).__name__, [c.__name__ for c in type(error).__mro__[1:]]]


def case_the_loader_cannot_load_it(u):
    """What the side's own loader raises, which the check answers."""
    loader = importlib.import_module(f"{u.__name__.rsplit('.', 1)[0]}._internal.nvvm")
    try:
        return ["ok", loader._inspect_function_pointer("__nvvmCreateProgram")]
    except Exception as error:  # noqa: BLE001
        return [type(error).__name__, [c.__name__ for c in type(error).__mro__[1:]]]
