"""``pytest -p jitlint.record --jitlint-record=calls.pkl``: the plugin lives in :mod:`jitlint.verify.record`."""
from jitlint.verify.record import (  # noqa: F401 - pytest finds the hooks here
    pytest_addoption,
    pytest_configure,
    pytest_load_initial_conftests,
    pytest_unconfigure,
)
