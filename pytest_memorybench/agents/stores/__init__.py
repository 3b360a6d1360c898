"""Memory stores: a memory product or your own store, compared on equal terms.

`store_protocol` is what a store implements (`add`, `search`, `clear`; optional `wait`, `answer`) and the
harness's client of it; `memory` is the agent around a store (one answerer, one prompt, one k, a
namespace per conversation); `figures` measures ingest, search and context tokens; `local` holds
the baselines (`bm25`, `dense`, `none`); `store_build` makes the store a spec names and checks it.
"""

from pytest_memorybench.agents.stores.store_protocol import Context, Hit, MemoryStore, StoreError

__all__ = ["Context", "Hit", "MemoryStore", "StoreError"]
