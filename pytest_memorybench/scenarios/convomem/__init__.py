"""ConvoMem (Salesforce AI Research): six evidence kinds, each question's history mixed with 2 to 300
conversations, to find where a memory starts to pay.

  data       its evidence items and filler conversations, and their loader
  generator  evidence items and filler of our own
  scenario   the six scenarios, each item's history mixed as its test-case generator mixes it
"""
