"""Generation stores: where a workspace session's index lives between runs (SPEC §11).

:mod:`ragls.store.interface` is the contract the service writes to; :mod:`ragls.store.embedded`
the default store, files under the user cache directory; :mod:`ragls.store.housekeeping` what
``ragls cache`` shows and removes. This layer stands beside ingest: it imports core only.
"""

from __future__ import annotations

from ragls.store.embedded import EmbeddedStore
from ragls.store.interface import GenerationStore, LoadResult, Snapshot, StoreInfo

__all__ = ["EmbeddedStore", "GenerationStore", "LoadResult", "Snapshot", "StoreInfo"]
