"""LoCoMo (Maharana et al., ACL 2024): questions about ten very long two-person conversations.

Modules, one idea each:
  data       the records of `locomo10.json` and its loader
  audit      the LoCoMo audit's gold-answer corrections (`errors.json`)
  generator  conversations of our own in the same shape, with an audit of their own
  scoring    the paper's token F1, the pipelines' judge "J", and J on the audited gold
  summary    the per-category table with Wilson intervals
  ceiling    the most a right answer can score per category against the original gold (the audit's)
  scenario   `locomo.conversations`, the probe scenario tying these together
"""
