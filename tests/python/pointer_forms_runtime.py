"""The runtime's function parameters of pointer_forms.py, run with no driver at all and the
release's libcudart from its wheel (both_modules.py `site`): every call converts its arguments,
then returns the runtime's no-driver status."""
from pointer_forms import parameter_forms

MODULE = "runtime"


def case_runtime_functions(r):
    return parameter_forms(r)
