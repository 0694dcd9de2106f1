"""The import hook behind :mod:`boltcodec.dropin`, kept minimal for interpreter start-up.

Importing this module imports nothing beyond ``importlib.machinery``; the native module
and the driver patches are only loaded when the ``neo4j`` driver imports the modules
served or wrapped here. See :mod:`boltcodec.dropin` for the design.

Which modules are which is decided from the names the driver itself imports, not from a
list of driver versions:

* an *accelerator module* is any ``neo4j...`` module with a ``_rust`` component (5.x
  drivers import ``neo4j._codec.packstream._rust`` and ``._rust.v1``; 6.x drivers
  ``neo4j._rust.codec.packstream``, ``.v1``, ``.v2`` and ``neo4j._rust.vector``). Its
  last component says what it must provide: ``v1``/``v2`` the codec functions of that
  PackStream version, ``vector`` the byte swapper, anything else is a package and gets
  ``Structure``;
* a *codec module* is the driver's own ``neo4j._codec.packstream.v<N>``: after it runs,
  :mod:`boltcodec.dropin` checks that it packs and unpacks through boltcodec exactly as its
  pure-Python code does, and reverts it to that code if not;
* ``neo4j._codec._types`` (the type tables the driver's packer checks values against,
  which boltcodec's packer reads too) is the driver's own where it has one (6.4 on);
  releases that keep those tables in ``neo4j._codec.packstream.v1.types`` get a module of
  that name holding the same tables;
* an *Inbox module* is a ``neo4j._sync.io…._common`` or ``neo4j._async.io…._common``
  module: after it runs, :mod:`boltcodec.dropin` replaces its ``Inbox``/``AsyncInbox``
  class if the class has the shape the replacement relies on;
* a *Result module* is ``neo4j._sync.work.result`` or ``neo4j._async.work.result``: after
  it runs, :mod:`boltcodec.dropin` checks that its ``Result._buffer`` keeps records in
  order when several arrive at once (batched RECORDs), and corrects it where it does not.
"""

import contextlib
import os
import sys
from importlib.machinery import ModuleSpec

ENV = "BOLTCODEC_NEO4J"
OFF = frozenset({"0", "off", "false", "no"})

#: Last name components of the accelerator modules that are plain modules, and what they
#: provide; every other accelerator module is a package that provides ``Structure``.
LEAF_MODULES = {"v1": "codec v1", "v2": "codec v2", "vector": "vector"}


def mode_from_env():
    """Return the mode ``BOLTCODEC_NEO4J`` asks for: None (off), codec, force, receive."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in OFF:
        return None
    if value in ("codec", "force"):
        return value
    return "receive"


def accelerator_kind(fullname):
    """Tell what the accelerator module ``fullname`` provides, or None if it is not one.

    ``"package"`` (``Structure``), ``"codec v1"``, ``"codec v2"`` or ``"vector"``.
    """
    parts = fullname.split(".")
    if parts[0] != "neo4j" or "_rust" not in parts[1:]:
        return None
    tail = parts[parts.index("_rust") + 1 :]
    if not tail:
        return "package"
    last = tail[-1]
    if last in LEAF_MODULES:
        return LEAF_MODULES[last]
    if len(tail) > 2 or last not in ("codec", "packstream"):
        return None  # a module this version of boltcodec does not know: ImportError
    return "package"


def codec_module_version(fullname):
    """Return the PackStream version of the driver's codec module ``fullname``, or None.

    ``neo4j._codec.packstream.v1`` -> 1, ``neo4j._codec.packstream.v2`` -> 2.
    """
    prefix = "neo4j._codec.packstream.v"
    if not fullname.startswith(prefix):
        return None
    digits = fullname[len(prefix) :]
    return int(digits) if digits.isdigit() else None


def inbox_module_kind(fullname):
    """``"sync"``/``"async"`` if ``fullname`` may define the driver's Inbox, else None."""
    parts = fullname.split(".")
    if len(parts) < 4 or parts[0] != "neo4j" or parts[2] != "io" or parts[-1] != "_common":
        return None
    return {"_sync": "sync", "_async": "async"}.get(parts[1])


#: The module boltcodec's packer reads the driver's type tables from, and where releases
#: before 6.4 keep them.
TYPES_MODULE = "neo4j._codec._types"
LEGACY_TYPES_MODULE = "neo4j._codec.packstream.v1.types"


def result_module_kind(fullname):
    """Return ``"sync"``/``"async"`` if ``fullname`` is the driver's Result module."""
    return {
        "neo4j._sync.work.result": "sync",
        "neo4j._async.work.result": "async",
    }.get(fullname)


def fill_alias(module, kind):
    """Fill one of the accelerator modules with boltcodec's functions."""
    from . import _native

    if kind == "package":
        module.Structure = _native.Structure
        module.__all__ = ["Structure"]
    elif kind == "codec v1":
        module.pack = _native.neo4j_pack_v1
        module.unpack = _native.neo4j_unpack_v1
        module.__all__ = ["pack", "unpack"]
    elif kind == "codec v2":
        module.pack = _native.neo4j_pack_v2
        module.unpack = _native.neo4j_unpack_v2
        module.__all__ = ["pack", "unpack"]
    elif kind == "vector":
        module.swap_endian = _native.swap_endian
        module.__all__ = ["swap_endian"]
    module.__doc__ = "boltcodec, serving as the neo4j driver's native codec."


class AliasLoader:
    """Creates an accelerator module from boltcodec's native functions."""

    def __init__(self, kind):
        """Load an accelerator module of ``kind`` (see :func:`accelerator_kind`)."""
        self.kind = kind

    def create_module(self, spec):
        """Use the default module creation."""
        return None

    def exec_module(self, module):
        """Fill the module with boltcodec's functions."""
        fill_alias(module, self.kind)
        from . import dropin

        dropin._served(module.__name__, self.kind)


class TypesAliasLoader:
    """Creates ``neo4j._codec._types`` from the release's ``packstream.v1.types``."""

    def create_module(self, spec):
        """Use the default module creation."""
        return None

    def exec_module(self, module):
        """Copy the public names of the release's type tables."""
        import importlib

        source = importlib.import_module(LEGACY_TYPES_MODULE)
        names = getattr(source, "__all__", None) or [
            n for n in vars(source) if n.isupper() and not n.startswith("_")
        ]
        for name in names:
            setattr(module, name, getattr(source, name))
        module.__all__ = list(names)
        module.__doc__ = f"boltcodec: the driver's {LEGACY_TYPES_MODULE}, under this name."
        from . import dropin

        dropin._served(module.__name__, "types " + LEGACY_TYPES_MODULE)


def _find_elsewhere(me, fullname, path, target):
    """Return the spec another finder of ``sys.meta_path`` gives for ``fullname``."""
    for finder in sys.meta_path:
        if finder is me or isinstance(finder, Finder):
            continue
        find = getattr(finder, "find_spec", None)
        spec = find(fullname, path, target) if find is not None else None
        if spec is not None:
            return spec
    return None


class PatchingLoader:
    """Runs a driver module's own loader, then lets :mod:`boltcodec.dropin` check it."""

    def __init__(self, loader, after):
        """Wrap ``loader``; ``after(module)`` runs once the module has executed."""
        self._loader = loader
        self._after = after

    def create_module(self, spec):
        """Delegate to the driver module's loader."""
        return self._loader.create_module(spec)

    def exec_module(self, module):
        """Execute the driver module, then check or patch it (never failing the import)."""
        self._loader.exec_module(module)
        # The driver must work even if the check itself is broken.
        with contextlib.suppress(Exception):
            self._after(module)

    def __getattr__(self, name):
        """Delegate everything else (``get_source`` …) to the driver module's loader."""
        return getattr(self._loader, name)


def _after_codec(module):
    from . import dropin

    dropin._verify_codec_module(module)


def _after_result(module):
    from . import dropin

    dropin._check_result_module(module)


def _after_inbox(module):
    from . import dropin

    dropin._patch_inbox_module(module)


class Finder:
    """Serves the accelerator modules and wraps the loaders of the driver's modules."""

    def __init__(self, mode):
        """Create a finder for ``mode`` (``codec``, ``receive`` or ``force``)."""
        self.mode = mode

    def find_spec(self, fullname, path=None, target=None):  # noqa: PLR0911
        """Return a spec for the modules boltcodec provides or checks."""
        if not fullname.startswith("neo4j."):
            return None
        kind = accelerator_kind(fullname)
        if kind is not None:
            return ModuleSpec(fullname, AliasLoader(kind), is_package=kind == "package")
        if fullname == TYPES_MODULE:
            if _find_elsewhere(self, fullname, path, target) is not None:
                return None  # the release has its own
            parent = sys.modules.get("neo4j._codec.packstream.v1")
            if parent is None or getattr(parent, "types", None) is None:
                return None  # no tables to serve: boltcodec's packer reports the error
            return ModuleSpec(fullname, TypesAliasLoader())
        if codec_module_version(fullname) is not None:
            after = _after_codec
        elif self.mode != "codec" and inbox_module_kind(fullname) is not None:
            after = _after_inbox
        elif self.mode != "codec" and result_module_kind(fullname) is not None:
            after = _after_result
        else:
            return None
        spec = _find_elsewhere(self, fullname, path, target)
        if spec is None or spec.loader is None:
            return None
        spec.loader = PatchingLoader(spec.loader, after)
        return spec

    def invalidate_caches(self):
        """Nothing is cached."""


def installed_finder():
    """Return the installed finder, if any."""
    for finder in sys.meta_path:
        if isinstance(finder, Finder):
            return finder
    return None


def install(mode):
    """Put the finder at the front of ``sys.meta_path`` (or change its mode)."""
    finder = installed_finder()
    if finder is not None:
        finder.mode = mode
    else:
        sys.meta_path.insert(0, Finder(mode))
