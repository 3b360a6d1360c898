"""ConvoMem (Salesforce AI Research): six evidence kinds, each question's history mixed with 2 to 300
conversations, to find where a memory starts to pay.

  data       its records, and how one published JSON row becomes one
  folders    where its files are in a Hugging Face download, and the record of what a load made
  premixed   its pre-mixed test cases, streamed a case at a time
  matching   which messages are an item's evidence, by ConvoMem's own rule
  loader     one evidence kind's questions: pre-mixed cases, or evidence questions and their filler
  generator  evidence items and filler of our own
  scenario   the six scenarios, each item's history as published or mixed as its generator mixes it
"""
