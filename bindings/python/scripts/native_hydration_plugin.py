"""pytest plugin: every hydration scope the driver creates gets boltcodec's native hooks.

Used by ``run-driver-hydration-tests.sh`` to run the official driver's own hydration
unit tests (which hydrate through ``scope.hydration_hooks[Structure]``) with the
``Structure`` hook replaced as the drop-in's receive path replaces it
(``boltcodec._hydration.native_hooks``). At the end it prints how many structures the
native builders built and how many went to the driver's functions, and fails the run
if none was built natively (the replacement did not happen).
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from boltcodec import _hydration, _native

_hydrators: list = []


def _patch(handler_cls: type) -> None:
    original = handler_cls.new_hydration_scope

    def new_hydration_scope(self):
        scope = original(self)
        hooks = _hydration.native_hooks(scope.hydration_hooks)
        if hooks is not scope.hydration_hooks:
            _hydrators.append(hooks[_native.Structure])
            scope.hydration_hooks = hooks
        return scope

    handler_cls.new_hydration_scope = new_hydration_scope


def pytest_configure(config: pytest.Config) -> None:
    """Patch every HydrationHandler class of the installed driver."""
    import neo4j._codec.hydration as package

    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        cls = vars(module).get("HydrationHandler")
        if isinstance(cls, type) and "new_hydration_scope" in vars(cls):
            _patch(cls)


def pytest_terminal_summary(terminalreporter) -> None:
    """Report how much was hydrated natively."""
    native = sum(h.counts[0] for h in _hydrators)
    delegated = sum(h.counts[1] for h in _hydrators)
    terminalreporter.write_line(
        f"boltcodec native hydration: {len(_hydrators)} scopes, {native} structures "
        f"built natively, {delegated} by the driver's functions; kinds {_hydration.state}"
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail a run in which nothing was hydrated natively."""
    if not any(h.counts[0] for h in _hydrators):
        session.exitstatus = 1
