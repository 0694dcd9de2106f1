"""boltcodec as the accelerator of the official ``neo4j`` Python driver (5.x and 6.x).

The driver looks for an optional native codec: 6.x drivers import
``neo4j._rust.codec.packstream`` (and ``.v1``, ``.v2``, ``neo4j._rust.vector``), 5.x drivers
(from 5.18 on) ``neo4j._codec.packstream._rust`` (and ``.v1``); the ``neo4j-rust-ext``
package provides those modules. boltcodec provides them through an import hook, so the
driver picks it up without any change to user code.

Activation
    Installing the ``boltcodec`` wheel adds ``boltcodec-neo4j.pth`` to site-packages. At
    interpreter start-up it puts a finder at the front of ``sys.meta_path`` (the small
    ``boltcodec._hook`` module; no native code is loaded, nothing else is imported).
    When the driver later imports its accelerator modules, the finder serves boltcodec's
    functions; if the ``neo4j-rust-ext`` package is installed too, boltcodec takes
    precedence.

Two levels
    ``codec``: the module interface of ``neo4j-rust-ext`` (``pack``, ``unpack``,
    ``Structure``, ``swap_endian``). The driver calls ``unpack`` once per message field and
    ``pack`` once per message field, and keeps its own chunking.

    ``receive``: on top of that, the driver's ``Inbox``/``AsyncInbox`` (the socket reader)
    is replaced by one that reads whatever the socket has, de-chunks it and decodes
    messages natively, handing consecutive buffered RECORDs to the driver as one batch.

Recognition, not version lists
    Nothing is keyed on the driver's version number. The accelerator modules are served by
    the names the driver imports. When the driver's codec module
    (``neo4j._codec.packstream.v1``, ``.v2``) has run, it is checked: packing and
    unpacking a set of values through boltcodec must give exactly what its own
    pure-Python code gives; if not, that module is put back on its pure-Python code.
    When the module defining the driver's ``Inbox`` has run, the class is replaced only if
    it has the shape the replacement relies on (``__init__(sock, on_error,
    unpacker_cls)``, ``pop(hydration_hooks)``, the module's ``Util``/``AsyncUtil`` and
    socket deadline exception), and RECORDs are only batched if every ``_process_message``
    of the driver's Bolt protocol modules treats the fields of a RECORD as rows and the
    driver's ``Result._buffer`` keeps records in order when several arrive at once (up to
    6.1 it does not; the drop-in corrects that form, see :func:`_check_result_module`).
    Whatever is not recognised stays the driver's own: :func:`status` says why, and the
    reason is logged once, as a warning, on the ``neo4j.boltcodec`` logger.

Environment variable ``BOLTCODEC_NEO4J``
    unset, ``1``, ``on``: ``receive`` where recognised, else ``codec`` where verified.
    ``codec``: only the codec.
    ``force``: as unset, but batch RECORDs even where the driver's protocol modules or
    Result cannot be checked to be safe with it.
    ``0``, ``off``, ``false``, ``no``: nothing (the driver uses its pure-Python codec, or
    ``neo4j-rust-ext`` if installed).

The hook must be in place before the driver is imported (the ``.pth`` file sees to that);
:func:`status` tells what is active.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import sys
import typing as t
import uuid

from . import _hook

__all__ = [
    "install",
    "status",
    "uninstall",
]

#: Where boltcodec reports a driver whose internals it does not recognise: a child of the
#: driver's own ``neo4j`` logger.
log = logging.getLogger("neo4j.boltcodec")

_state: dict[str, t.Any] = {
    # accelerator module name -> what it provides
    "served": {},
    # codec module name -> (boltcodec in use, reason)
    "codec": {},
    # Inbox module name -> (class replaced, reason)
    "inbox": {},
    # Result module name -> (batched RECORDs are safe, note)
    "result": {},
    "logged": set(),
    "imported_before_hook": False,
}

NOT_IMPORTED = "the neo4j driver is not imported yet (the hook activates when it is)"


def _warn_once(key: str, message: str, *args: t.Any) -> None:
    if key in _state["logged"]:
        return
    _state["logged"].add(key)
    log.warning(message, *args)


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


def _served(name: str, kind: str) -> None:
    """Record an accelerator module the import hook served."""
    _state["served"][name] = kind


# ---------------------------------------------------------------------------------------
# Codec level: check the driver's codec module against its own pure-Python code.


class _IntLike(int):
    pass


class _FloatLike(float):
    pass


class _StrLike(str):
    pass


def _codec_samples(version: int) -> list[t.Any]:
    from . import _native

    structure = _native.Structure
    samples: list[t.Any] = [
        None,
        True,
        False,
        0,
        -16,
        -17,
        127,
        128,
        -129,
        32767,
        -32769,
        2**31,
        -(2**63),
        2**63 - 1,
        1.5,
        -0.0,
        float("inf"),
        "",
        "é" * 20,
        "x" * 300,
        b"",
        b"\x00\xff" * 200,
        [1, [2, [3, []]], "a"],
        list(range(20)),
        {"a": 1, "b": [None, {"c": 2.5}]},
        {str(i): i for i in range(20)},
        structure(b"N", 1, ["L"], {"k": "v"}),
        structure(b"X", structure(b"Y"), [structure(b"Z", 1)]),
        # Not the exact built-in types: they take the driver's type tables.
        (1, (2, "three")),
        bytearray(b"\x01\x02"),
        _IntLike(7),
        _FloatLike(0.25),
        _StrLike("s"),
        {"t": (None,)},
    ]
    if version >= 2:
        samples.append([uuid.UUID(int=0x0123456789ABCDEF0123456789ABCDEF)])
    return samples


def _check_codec(module: t.Any, version: int) -> str | None:
    """Compare boltcodec with the codec module's own pure-Python code on the samples.

    Return what differs, or None when packing and unpacking are identical.
    """
    packer_cls = module.Packer
    unpacker_cls = module.Unpacker
    inject = packer_cls._inject_hooks

    def unpack(data: bytes, hooks: t.Any, pure: bool) -> t.Any:
        buf = unpacker_cls.new_unpackable_buffer()
        buf.data = bytearray(data)
        buf.used = len(data)
        unpacker = unpacker_cls(buf)
        if pure:
            return unpacker._unpack(hydration_hooks=hooks)
        return unpacker.unpack(hooks)

    from . import _native

    hooks = {_native.Structure: lambda s: ("hydrated", s.tag, s.fields)}
    for value in _codec_samples(version):
        ours_packer = packer_cls(packer_cls.new_packable_buffer())
        ours_packer.pack(value)
        pure_packer = packer_cls(packer_cls.new_packable_buffer())
        pure_packer._py_pack(value, inject(None))
        ours, pure = bytes(ours_packer.stream.data), bytes(pure_packer.stream.data)
        if ours != pure:
            return f"packing {value!r:.60} gives {ours[:24].hex()} instead of {pure[:24].hex()}"
        for h in (None, hooks):
            got, want = unpack(pure, h, False), unpack(pure, h, True)
            if type(got) is not type(want) or repr(got) != repr(want):
                return f"unpacking {pure[:24].hex()} gives {got!r:.60} instead of {want!r:.60}"
    return None


def _revert_codec(module: t.Any) -> None:
    """Put the driver's codec module back on its pure-Python code."""

    def _pack(self: t.Any, data: t.Any, dehydration_hooks: t.Any = None) -> None:
        self._py_pack(data, dehydration_hooks)

    def unpack(self: t.Any, hydration_hooks: t.Any = None) -> t.Any:
        return self._unpack(hydration_hooks=hydration_hooks)

    module.Packer._pack = _pack
    module.Unpacker.unpack = unpack
    module._rust_pack = None
    module._rust_unpack = None


def _verify_codec_module(module: t.Any) -> None:
    """Check the driver's ``neo4j._codec.packstream.v<N>`` once it ran (import hook)."""
    from . import _native

    name = module.__name__
    version = _hook.codec_module_version(name) or 1
    ours = (
        {_native.neo4j_pack_v1, _native.neo4j_unpack_v1}
        if version == 1
        else {_native.neo4j_pack_v2, _native.neo4j_unpack_v2}
    )
    pack = getattr(module, "_rust_pack", None)
    unpack = getattr(module, "_rust_unpack", None)
    if pack is None and unpack is None:
        reason = f"{name} does not import an accelerator this boltcodec serves"
        _state["codec"][name] = (False, reason)
        _warn_once("codec:" + name, "boltcodec: codec not active: %s", reason)
        return
    if pack not in ours or unpack not in ours:
        reason = f"{name} imported an accelerator other than boltcodec's"
        _state["codec"][name] = (False, reason)
        _warn_once("codec:" + name, "boltcodec: codec not active: %s", reason)
        return
    try:
        problem = _check_codec(module, version)
    except Exception as e:
        problem = f"checking it failed: {e!r}"
    if problem is not None:
        reason = f"{name} does not work with boltcodec as with its own code ({problem})"
        try:
            _revert_codec(module)
        except Exception as e:
            reason += f"; reverting it to its pure-Python code failed: {e!r}"
            _state["codec"][name] = (True, reason)
        else:
            reason += "; it uses its pure-Python code"
            _state["codec"][name] = (False, reason)
        _warn_once("codec:" + name, "boltcodec: %s", reason)
        return
    _state["codec"][name] = (True, "active")


# ---------------------------------------------------------------------------------------
# Receive level: replace the driver's Inbox when it has the shape the replacement needs.

_RECORD_BRANCH = re.compile(
    r"if\s+tag\s*==\s*b[\"']\\x71[\"']\s*:[^\n]*\n\s*details\s*=\s*fields\s*\n"
)


# A method ``_process_message`` with its decorators (group 1) and body (group 2).
_PROCESS_MESSAGE = re.compile(
    r"((?:\n    @[^\n]*)*)\n    (?:async )?def _process_message\(([\s\S]*?)"
    r"(?=\n    (?:async def |def |@)|\nclass |\Z)"
)


def _params(func: t.Any) -> list[str]:
    return list(inspect.signature(func).parameters)


def _records_are_rows(module: t.Any) -> str | None:
    """Check that the driver's protocol modules take each field of a RECORD as a row.

    Every ``_process_message`` of the Bolt protocol modules next to the Inbox module must
    hand each field of a RECORD to ``on_records`` as one row (which is what makes batching
    RECORDs safe). Return what is wrong, or None.
    """
    directory = os.path.dirname(getattr(module, "__file__", None) or "")
    try:
        names = sorted(
            n for n in os.listdir(directory) if n.startswith("_bolt") and n.endswith(".py")
        )
    except OSError as e:
        return f"the driver's protocol modules cannot be read ({e})"
    checked = 0
    for file_name in names:
        path = os.path.join(directory, file_name)
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except OSError as e:
            return f"{file_name} cannot be read ({e})"
        for m in _PROCESS_MESSAGE.finditer(source):
            if "abstractmethod" in m.group(1):
                continue
            checked += 1
            body = m.group(2)
            if not _RECORD_BRANCH.search(body) or "on_records(details)" not in body:
                return f"{file_name}: _process_message does not treat RECORD fields as rows"
    if checked == 0:
        return f"no _process_message found in {directory}"
    return None


# ``Result._buffer(n)`` of releases up to 6.1 appends what it took from the stream after
# the records still buffered, which only keeps the order while a fetch delivers at most one
# record; 6.2 on put what it took first.
_BUFFER_APPENDS_TAKEN = re.compile(r"self\._record_buffer\.extend\(record_buffer\)")
_BUFFER_PUTS_TAKEN_FIRST = re.compile(
    r"record_buffer\.extend\(self\._record_buffer\)\s*\n\s*self\._record_buffer = record_buffer"
)


def _ordered_buffer(original: t.Any, is_async: bool) -> t.Any:
    """Wrap ``Result._buffer`` so that the records it took come before those left over.

    The original leaves ``leftovers + taken`` when it stopped after ``n`` records with more
    buffered; ``taken`` is then exactly the last ``n``, so rotating them to the front
    gives the order a one-record-per-fetch stream gives.
    """
    if is_async:

        async def _buffer(self: t.Any, n: t.Any = None) -> None:
            if n is None or len(self._record_buffer) >= n:
                return await original(self, n)
            await original(self, n)
            if len(self._record_buffer) > n:
                self._record_buffer.rotate(n)
            return None

    else:

        def _buffer(self: t.Any, n: t.Any = None) -> None:  # type: ignore[misc]
            if n is None or len(self._record_buffer) >= n:
                return original(self, n)
            original(self, n)
            if len(self._record_buffer) > n:
                self._record_buffer.rotate(n)
            return None

    _buffer.__wrapped__ = original  # type: ignore[attr-defined]
    _buffer.__doc__ = original.__doc__
    return _buffer


def _check_result_module(module: t.Any) -> None:
    """Make sure the driver's Result keeps records in order when RECORDs come batched."""
    name = module.__name__
    is_async = _hook.result_module_kind(name) == "async"
    cls = vars(module).get("AsyncResult" if is_async else "Result")
    original = getattr(cls, "_buffer", None)
    if original is None:
        note = f"{name} has no Result._buffer"
        _state["result"][name] = (False, note)
        return
    try:
        source = inspect.getsource(original)
    except (OSError, TypeError) as e:
        _state["result"][name] = (False, f"{name}: Result._buffer cannot be read ({e})")
        return
    if _BUFFER_PUTS_TAKEN_FIRST.search(source):
        _state["result"][name] = (True, "")
    elif _BUFFER_APPENDS_TAKEN.search(source) and (
        inspect.iscoroutinefunction(original) is is_async
    ):
        cls._buffer = _ordered_buffer(original, is_async)
        _state["result"][name] = (True, "")
    else:
        note = f"{name}: Result._buffer is not one boltcodec knows"
        _state["result"][name] = (False, note)


def _batch_limit(static: int) -> int:
    """Return how many RECORDs an Inbox may merge now.

    ``static``, unless a Result module seen so far could reorder batched records (then 1,
    unless ``force``).
    """
    if static == 1:
        return 1
    finder = _hook.installed_finder()
    if finder is not None and finder.mode == "force":
        return static
    if any(not ok for ok, _ in _state["result"].values()):
        return 1
    return static


def _find_io_errors(module: t.Any) -> tuple[type[BaseException], ...] | None:
    found = [
        v
        for k, v in vars(module).items()
        if k.startswith("SocketDeadlineExceeded")
        and isinstance(v, type)
        and issubclass(v, Exception)
    ]
    if len(found) != 1:
        return None
    return (OSError, found[0])


def _inbox_problem(  # noqa: PLR0911
    cls: t.Any, is_async: bool, util: t.Any, io_errors: t.Any
) -> str | None:
    if not isinstance(cls, type):
        return "it is not a class"
    if _params(cls.__init__) != ["self", "sock", "on_error", "unpacker_cls"]:
        return f"__init__{inspect.signature(cls.__init__)} is not (sock, on_error, unpacker_cls)"
    pop = getattr(cls, "pop", None)
    if pop is None or _params(pop) != ["self", "hydration_hooks"]:
        return "it has no pop(hydration_hooks)"
    if inspect.iscoroutinefunction(pop) is not is_async:
        return "pop is not " + ("a coroutine function" if is_async else "a plain function")
    if not callable(getattr(util, "callback", None)):
        return "its module has no " + ("AsyncUtil" if is_async else "Util") + ".callback"
    if io_errors is None:
        return "its module has no SocketDeadlineExceeded(Error) exception"
    return None


def _patch_inbox_module(module: t.Any) -> None:
    """Replace the Inbox of a ``neo4j._(a)sync.io…._common`` module once it ran."""
    name = module.__name__
    is_async = _hook.inbox_module_kind(name) == "async"
    attr = "AsyncInbox" if is_async else "Inbox"
    original = vars(module).get(attr)
    if original is None:
        return  # not the module that defines the Inbox in this release
    where = f"{name}.{attr}"
    util = vars(module).get("AsyncUtil" if is_async else "Util")
    io_errors = _find_io_errors(module)
    problem = _inbox_problem(original, is_async, util, io_errors)
    if problem is not None:
        reason = f"{where} is not recognised: {problem}"
        _state["inbox"][name] = (False, reason)
        _warn_once("inbox:" + name, "boltcodec: receive path not enabled: %s", reason)
        return
    finder = _hook.installed_finder()
    batching = _records_are_rows(module)
    max_batch = 65536
    reason = "active"
    if batching is not None:
        if finder is not None and finder.mode == "force":
            reason = f"active, RECORDs batched although unchecked ({batching})"
        else:
            max_batch = 1
            reason = f"active, one RECORD at a time ({batching})"
            _warn_once("batch:" + name, "boltcodec: receive path without batching: %s", batching)
    from . import _inbox

    replacement = _inbox.make_inbox(
        original, is_async, util, io_errors, lambda: _batch_limit(max_batch)
    )
    setattr(module, attr, replacement)
    _state["inbox"][name] = (True, reason)


# ---------------------------------------------------------------------------------------
# Public interface.


def install(receive: bool | None = None) -> bool:
    """Make the neo4j driver use boltcodec (call before the driver is imported).

    ``receive``: ``True`` for the native receive path (where the driver's Inbox is
    recognised), ``False`` for the codec only, ``None`` to follow ``BOLTCODEC_NEO4J``.
    Returns whether the hook is installed (``False`` when the environment variable
    switches it off).
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
        _state["imported_before_hook"] = True
        log.warning(
            "boltcodec.dropin.install(): the neo4j driver was imported before; "
            "it keeps the codec it found then"
        )
    return True


def uninstall() -> None:
    """Remove the import hook (modules the driver already imported stay as they are)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _hook.Finder)]


def _codec_modules() -> dict[str, t.Any]:
    return {
        name: module
        for name, module in list(sys.modules.items())
        if module is not None and _hook.codec_module_version(name) is not None
    }


def _codec_status() -> tuple[bool, str]:
    from . import _native

    modules = _codec_modules()
    if not modules:
        if "neo4j" in sys.modules:
            return False, "the driver's codec modules are not imported"
        return False, NOT_IMPORTED
    ours = {
        _native.neo4j_unpack_v1,
        _native.neo4j_unpack_v2,
        _native.neo4j_pack_v1,
        _native.neo4j_pack_v2,
    }
    problems: list[str] = []
    notes: list[str] = []
    for name in sorted(modules):
        module = modules[name]
        uses_ours = (
            getattr(module, "_rust_pack", None) in ours
            and getattr(module, "_rust_unpack", None) in ours
        )
        recorded = _state["codec"].get(name)
        if not uses_ours:
            if recorded is not None and not recorded[0]:
                problems.append(recorded[1])
            elif recorded is None:
                problems.append(f"{name} was imported before boltcodec's import hook")
            else:
                problems.append(f"{name} no longer uses boltcodec")
        elif recorded is None:
            notes.append(f"{name} was not checked")
        elif recorded[1] != "active":
            notes.append(recorded[1])
    if problems:
        return False, "; ".join(problems + notes)
    return True, "active (" + ", ".join(sorted(modules)) + ")" + "".join(f"; {n}" for n in notes)


def _receive_status(codec: bool) -> tuple[bool, str]:  # noqa: PLR0911
    finder = _hook.installed_finder()
    if finder is not None and finder.mode == "codec":
        return False, f"disabled ({_hook.ENV}=codec)"
    users = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("neo4j._sync.io", "neo4j._async.io")):
            continue
        for attr in ("Inbox", "AsyncInbox"):
            cls = vars(module).get(attr) if hasattr(module, "__dict__") else None
            if isinstance(cls, type):
                users[f"{name}.{attr}"] = cls
    if not users:
        if "neo4j" in sys.modules:
            return False, "the driver's Bolt I/O modules are not imported"
        return False, NOT_IMPORTED
    not_ours = sorted(
        k for k, cls in users.items() if getattr(cls, "_boltcodec_original", None) is None
    )
    if not_ours:
        recorded = [r for ok, r in _state["inbox"].values() if not ok]
        if recorded:
            return False, "; ".join(recorded)
        return False, f"{', '.join(not_ours)} not replaced (imported before boltcodec's hook?)"
    if not codec:
        return False, (
            "the Inbox is replaced, but hands over to the driver's own while the codec "
            "is not active"
        )
    unbatched = [note for ok, note in _state["result"].values() if not ok]
    finder_force = finder is not None and finder.mode == "force"
    if unbatched and not finder_force:
        return True, "active, one RECORD at a time (" + "; ".join(unbatched) + ")"
    reasons = {name: r for name, (ok, r) in _state["inbox"].items() if ok}
    if len(set(reasons.values())) <= 1:
        return True, next(iter(reasons.values()), "active")
    return True, "; ".join(f"{name}: {r}" for name, r in sorted(reasons.items()))


def status() -> dict[str, t.Any]:
    """Describe what is active, as it is at this moment.

    Keys: ``hook`` (the import hook is installed), ``codec`` (the driver's codec modules
    pack and unpack through boltcodec), ``receive`` (every Inbox class the driver uses is
    boltcodec's), ``hydration`` (the last result the receive path decoded was hydrated
    natively, see :mod:`boltcodec._hydration`), ``level`` (``"hydration"``, ``"receive"``,
    ``"codec"`` or ``"off"``), ``codec_reason``, ``receive_reason`` and
    ``hydration_reason`` (``"active"``, or why not), ``hydration_kinds`` (the structure
    tags built natively), ``driver_version``.
    """
    hook = _hook.installed_finder() is not None
    codec, codec_reason = _codec_status()
    receive, receive_reason = _receive_status(codec)
    if not hook and not codec:
        mode = os.environ.get(_hook.ENV)
        why = (
            f"switched off ({_hook.ENV}={mode})"
            if _hook.mode_from_env() is None
            else "the import hook is not installed (boltcodec.dropin.install())"
        )
        if "neo4j" not in sys.modules:
            codec_reason = receive_reason = why
        else:
            codec_reason = f"{why}; {codec_reason}"
    from . import _hydration

    hydration = receive and _hydration.state["active"]
    hydration_reason = (
        _hydration.state["reason"] if receive else "the native receive path is not active"
    )
    level = "hydration" if hydration else "receive" if receive else "codec" if codec else "off"
    return {
        "hook": hook,
        "codec": codec,
        "receive": receive,
        "hydration": hydration,
        "level": level,
        "codec_reason": codec_reason,
        "receive_reason": receive_reason,
        "hydration_reason": hydration_reason,
        "hydration_kinds": _hydration.state["kinds"] if hydration else (),
        "driver_version": _driver_version(),
    }
