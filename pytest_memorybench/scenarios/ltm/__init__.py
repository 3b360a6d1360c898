"""The GoodAI LTM Benchmark scenarios (Castillo-Bolado et al., "Beyond Prompts", App. A)."""
