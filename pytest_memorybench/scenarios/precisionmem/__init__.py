"""PrecisionMemBench (tenurehq, MIT): what a memory must return for a query, and what it must not.

data       its records, and the loader of its published fixtures
generator  a corpus of our own in the same layout
scoring    what came back mapped to belief ids, the tiers, every assertion, precision and recall,
           the pass taxonomy and the drift score
scenario   the two scenarios: the single-turn cases and the session turns
"""
