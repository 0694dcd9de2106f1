"""boltcodec: a fast PackStream/Bolt codec for Neo4j that raises errors instead of crashing."""

from . import bolt as bolt
from . import dropin as dropin
from ._native import (
    Dechunker as Dechunker,
)
from ._native import (
    DechunkError as DechunkError,
)
from ._native import (
    DecodeError as DecodeError,
)
from ._native import (
    EncodeError as EncodeError,
)
from ._native import (
    Structure as Structure,
)
from ._native import (
    packb as packb,
)
from ._native import (
    unpack_from as unpack_from,
)
from ._native import (
    unpackb as unpackb,
)

__version__: str
__all__: list[str]
