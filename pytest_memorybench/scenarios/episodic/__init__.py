"""The episodic-memory family: Huet, Ben Houidi and Rossi, "Episodic Memories Generation and
Evaluation Benchmark for Large Language Models" (ICLR 2025).

A synthetic book of events (t, s, ent, c) is delivered to the agent, then cue-based questions
(36 templates, empty-answer ones included) are asked about it and scored by item-level F1 and, for
chronological questions, Kendall τ.  Modules, in the order data flows through them:

  lists        our own raw materials: places, event contents with their details, styles
  universe     the static universe of a seed (dates, Faker names, shuffled lists)
  events       truncated-geometric event sampling, constraints, prefix property, meta-data
  prose        the offline `template` chapter writer
  verify       the exact chapter checks both writers must pass
  llm_writer   the `llm` chapter writer: a configured model, verification and retries
  book         chapters' ground truth and lazily written text
  templates    the 36 question templates
  questions    ground truth, empty-answer questions, bin-balanced selection
  loader       the published figshare layout and our saved books
  scoring      per-question scores and the paper's summary metrics
  scenario     `episodic.book`, the probe scenario suites run
  cli          writing and measuring books from the command line
"""
