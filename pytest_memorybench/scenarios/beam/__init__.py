"""BEAM (Tavakoli et al., "Beyond a Million Tokens"): ten memory abilities over very long chats.

Modules, one idea each:
  questions   the probing-question records and their field-name normalisation
  chat        batches, turns and messages of a chat; plan markers; time anchors
  loader      the published data under a user's path (repository layout, Hugging Face export)
  content     the words and sentences our generator writes with
  generator   a BEAM-shaped chat of our own with planted facts and its probing questions
  writer      saving a generated chat in the published layouts (tests, benchmarks)
  scoring     nugget and event-ordering scores under the `paper` and `official` profiles
  summary     the per-size × per-ability table
  scenario    `beam.conversations`, the probe scenario tying these together
"""
