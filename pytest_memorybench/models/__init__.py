"""Models as a service: the chat APIs agents, judges and the estimate call, and what bounds the calls.

`llm` is what every provider's adapter shares (the transcript cut to the context budget, retries
with backoff, token, latency and cost counts); `openai` and `anthropic` speak their APIs (any
OpenAI-compatible server through `openai`); `http` is the wire under them (one TLS context, a
server's errors and Retry-After, a probe that a server answers); `provider_pool` is the pool a run
owns and closes (each endpoint's gate and measured limit); `limits` holds a provider's rate limits
shared by every caller, `concurrency` the level `--mb-concurrency auto` finds, `prices` the price
and context window of known models, and `budget` the check each call passes under `--mb-max-cost`.
It imports only the core layer.
"""
