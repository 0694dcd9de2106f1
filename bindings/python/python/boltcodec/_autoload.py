"""Start-up hook, run by ``boltcodec-neo4j.pth`` in every interpreter of the environment.

It only registers an import hook (no native code is loaded, and nothing but
``importlib.machinery`` is imported): when the ``neo4j`` driver is imported later, it finds
boltcodec as its accelerator. Set ``BOLTCODEC_NEO4J=0`` to switch this off. Start-up must
never fail because of it, so any error here is swallowed (``boltcodec.dropin.install()``
reports errors when called directly).
"""

try:
    from boltcodec import _hook

    _mode = _hook.mode_from_env()
    if _mode is not None:
        _hook.install(_mode)
except Exception:  # never break interpreter start-up
    pass
