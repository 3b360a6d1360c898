"""MemBench (Tan, Zhang, Ma et al., ACL Findings 2025): factual and reflective memory, two scenarios.

The agent is given a user's history — a dialogue it took part in (`membench.participation`, the
paper's "first agent" data) or a stream of the user's messages it only records
(`membench.observation`, "third agent") — and then one multiple-choice question about it.  Every
question is a pytest item; its trajectory is a probe context of its own (`contract.probes`).

Modules, one idea each:
  lists, preferences, emotions   our own vocabulary: profiles, events, tastes, feelings
  graph        the user's relation graph (Faker names, our lists), deterministic per seed
  phrasing     how a graph fact is said, asked and corrected
  questions    the ten question types: evidence, question, four options
  noise        our own news-like small talk that pads a trajectory to its target size
  case         a trajectory with its one question, generated or loaded; the step-id convention
  trajectory   evidence spread evenly among related facts and noise; sessions, times, step ids
  published    the loader for the authors' released files (FirstAgent / ThirdAgent)
  metrics      per-question details (correct per ask, recall@k) and the scenario summaries
  benchmark    the scenario object both scenario modules instantiate
"""
