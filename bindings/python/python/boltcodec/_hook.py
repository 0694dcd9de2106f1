"""The import hook behind :mod:`boltcodec.dropin`, kept minimal for interpreter start-up.

Importing this module imports nothing beyond ``importlib.machinery``; the native module
and the driver patches are only loaded when the ``neo4j`` driver imports the modules
served here. See :mod:`boltcodec.dropin` for the design.
"""

import os
import sys
from importlib.machinery import ModuleSpec

ENV = "BOLTCODEC_NEO4J"
OFF = frozenset({"0", "off", "false", "no"})

# The accelerator modules the driver imports, and whether each is a package.
ALIASES = {
    "neo4j._rust": True,
    "neo4j._rust.codec": True,
    "neo4j._rust.codec.packstream": True,
    "neo4j._rust.codec.packstream.v1": False,
    "neo4j._rust.codec.packstream.v2": False,
    "neo4j._rust.vector": False,
}

# Driver modules whose Inbox class the ``receive`` level replaces: (attribute, async).
INBOX_MODULES = {
    "neo4j._sync.io._bolt._base": ("Inbox", False),
    "neo4j._async.io._bolt._base": ("AsyncInbox", True),
}


def mode_from_env():
    """Return the mode ``BOLTCODEC_NEO4J`` asks for: None (off), codec, force, receive."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in OFF:
        return None
    if value in ("codec", "force"):
        return value
    return "receive"


def fill_alias(module):
    """Fill one of the ``neo4j._rust...`` modules with boltcodec's functions."""
    from . import _native

    name = module.__name__
    if name == "neo4j._rust.codec.packstream":
        module.Structure = _native.Structure
        module.__all__ = ["Structure"]
    elif name == "neo4j._rust.codec.packstream.v1":
        module.pack = _native.neo4j_pack_v1
        module.unpack = _native.neo4j_unpack_v1
        module.__all__ = ["pack", "unpack"]
    elif name == "neo4j._rust.codec.packstream.v2":
        module.pack = _native.neo4j_pack_v2
        module.unpack = _native.neo4j_unpack_v2
        module.__all__ = ["pack", "unpack"]
    elif name == "neo4j._rust.vector":
        module.swap_endian = _native.swap_endian
        module.__all__ = ["swap_endian"]
    else:
        module.__all__ = []
    module.__doc__ = "boltcodec, serving as the neo4j driver's native codec."


class AliasLoader:
    """Creates the ``neo4j._rust...`` modules from boltcodec's native functions."""

    def create_module(self, spec):
        """Use the default module creation."""
        return None

    def exec_module(self, module):
        """Fill the module with boltcodec's functions."""
        fill_alias(module)


class PatchingLoader:
    """Runs a driver module's own loader, then lets :mod:`boltcodec.dropin` patch it."""

    def __init__(self, loader, attr, is_async):
        """Wrap ``loader``."""
        self._loader = loader
        self._attr = attr
        self._is_async = is_async

    def create_module(self, spec):
        """Delegate to the driver module's loader."""
        return self._loader.create_module(spec)

    def exec_module(self, module):
        """Execute the driver module, then patch it (or leave it as it is)."""
        self._loader.exec_module(module)
        from . import dropin

        dropin._patch_inbox(module, self._attr, self._is_async)

    def __getattr__(self, name):
        """Delegate everything else (``get_source`` …) to the driver module's loader."""
        return getattr(self._loader, name)


class Finder:
    """Serves ``neo4j._rust...`` and wraps the loaders of the driver's Bolt modules."""

    def __init__(self, mode):
        """Create a finder for ``mode`` (``codec``, ``receive`` or ``force``)."""
        self.mode = mode

    def find_spec(self, fullname, path=None, target=None):
        """Return a spec for the modules boltcodec provides or patches."""
        is_package = ALIASES.get(fullname)
        if is_package is not None:
            return ModuleSpec(fullname, AliasLoader(), is_package=is_package)
        target_attr = INBOX_MODULES.get(fullname)
        if target_attr is None or self.mode == "codec":
            return None
        for finder in sys.meta_path:
            if finder is self or isinstance(finder, Finder):
                continue
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is None:
                    return None
                spec.loader = PatchingLoader(spec.loader, *target_attr)
                return spec
        return None

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
