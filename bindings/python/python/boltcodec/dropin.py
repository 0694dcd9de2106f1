"""boltcodec as the accelerator of the official ``neo4j`` Python driver (6.x).

The driver looks for an optional native codec with ``import neo4j._rust.codec.packstream``
(and ``.v1``, ``.v2``, ``neo4j._rust.vector``); the ``neo4j-rust-ext`` package provides
those modules. boltcodec provides the same modules through an import hook, so the driver
picks it up without any change to user code.

Activation
    Installing the ``boltcodec`` wheel adds ``boltcodec-neo4j.pth`` to site-packages. At
    interpreter start-up it puts a finder at the front of ``sys.meta_path`` (the small
    ``boltcodec._hook`` module; no native code is loaded, nothing else is imported).
    When the driver later imports ``neo4j._rust...``, the finder serves boltcodec's
    functions; if the ``neo4j-rust-ext`` package is installed too, boltcodec takes
    precedence.

Two levels
    ``codec``: the module interface of ``neo4j-rust-ext`` (``pack``, ``unpack``,
    ``Structure``, ``swap_endian``). The driver calls ``unpack`` once per message field and
    ``pack`` once per message field, and keeps its own chunking.

    ``receive``: on top of that, the driver's ``Inbox``/``AsyncInbox`` (the socket reader)
    is replaced by one that reads whatever the socket has, de-chunks it and decodes
    messages natively, handing consecutive buffered RECORDs to the driver as one batch.
    This touches driver internals, so it is only enabled for the driver versions it was
    tested with (:data:`TESTED_DRIVER_VERSIONS`); other versions fall back to ``codec``.

Environment variable ``BOLTCODEC_NEO4J``
    unset, ``1``, ``on``: ``receive`` on tested driver versions, else ``codec``.
    ``codec``: only the codec.
    ``force``: ``receive`` whatever the driver version.
    ``0``, ``off``, ``false``, ``no``: nothing (the driver uses its pure-Python codec, or
    ``neo4j-rust-ext`` if installed).

The hook must be in place before the driver is imported (the ``.pth`` file sees to that);
:func:`status` tells what is active.
"""

from __future__ import annotations

import logging
import sys
import typing as t

from . import _hook

__all__ = [
    "TESTED_DRIVER_VERSIONS",
    "install",
    "status",
    "uninstall",
]

#: Driver versions whose internals the ``receive`` level was tested against.
TESTED_DRIVER_VERSIONS: frozenset[str] = frozenset({"6.4.1"})

_state: dict[str, t.Any] = {
    "receive_active": False,
    "receive_reason": "driver not imported yet",
    "driver_version": None,
}


def _driver_version() -> str | None:
    meta = sys.modules.get("neo4j._meta")
    version = getattr(meta, "version", None)
    if isinstance(version, str):
        return version
    try:
        from importlib.metadata import version as dist_version

        return dist_version("neo4j")
    except Exception:
        return None


def _patch_inbox(module: t.Any, attr: str, is_async: bool) -> None:
    """Replace the driver's Inbox when everything it relies on checks out."""
    version = _driver_version()
    _state["driver_version"] = version
    finder = _hook.installed_finder()
    if finder is None or finder.mode == "codec":
        _state["receive_reason"] = "disabled (codec only)"
        return
    if finder.mode != "force" and version not in TESTED_DRIVER_VERSIONS:
        _state["receive_reason"] = (
            f"driver {version} is not one of the tested versions "
            f"{sorted(TESTED_DRIVER_VERSIONS)}; set {_hook.ENV}=force to enable it anyway"
        )
        return
    try:
        from neo4j._codec.packstream import Structure as driver_structure

        from . import _inbox, _native

        if driver_structure is not _native.Structure:
            _state["receive_reason"] = "the driver does not use boltcodec's Structure"
            return
        original = getattr(module, attr, None)
        if original is None or not callable(getattr(original, "pop", None)):
            _state["receive_reason"] = f"{module.__name__}.{attr} not found"
            return
        replacement = _inbox.make_inbox(original, is_async)
        setattr(module, attr, replacement)
        common = sys.modules.get(module.__name__.rsplit(".", 1)[0] + "._common")
        if common is not None and getattr(common, attr, None) is original:
            setattr(common, attr, replacement)
    except Exception as e:
        logging.getLogger("boltcodec").debug("receive path not enabled: %r", e)
        _state["receive_reason"] = f"not enabled: {e!r}"
        return
    _state["receive_active"] = True
    _state["receive_reason"] = "active"


def install(receive: bool | None = None) -> bool:
    """Make the neo4j driver use boltcodec (call before the driver is imported).

    ``receive``: ``True`` for the native receive path (tested driver versions only),
    ``False`` for the codec only, ``None`` to follow ``BOLTCODEC_NEO4J``. Returns whether
    the hook is installed (``False`` when the environment variable switches it off).
    """
    env_mode = _hook.mode_from_env()
    if env_mode is None:
        return False
    if receive is None:
        mode = env_mode
    elif receive:
        mode = "force" if env_mode == "force" else "receive"
    else:
        mode = "codec"
    _hook.install(mode)
    if "neo4j._codec.packstream" in sys.modules:
        logging.getLogger("boltcodec").warning(
            "boltcodec.dropin.install(): the neo4j driver was imported before; "
            "it keeps the codec it found then"
        )
    return True


def uninstall() -> None:
    """Remove the import hook (modules the driver already imported stay as they are)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _hook.Finder)]


def status() -> dict[str, t.Any]:
    """Describe what is active.

    Keys: ``hook`` (the import hook is installed), ``codec`` (the driver imported
    boltcodec as its accelerator), ``receive`` (the native receive path replaced the
    driver's Inbox), ``receive_reason``, ``driver_version``.
    """
    codec = False
    common = sys.modules.get("neo4j._codec.packstream._common")
    if common is not None:
        try:
            from . import _native

            codec = getattr(common, "Structure", None) is _native.Structure
        except ImportError:
            codec = False
    return {
        "hook": _hook.installed_finder() is not None,
        "codec": codec,
        "receive": bool(_state["receive_active"]),
        "receive_reason": _state["receive_reason"],
        "driver_version": _state["driver_version"] or _driver_version(),
    }
