"""sdebench: vectorize-io/sde-bench's coding tasks, graded by hidden tests, with corrections.

`scenario.py` runs a task (history delivered, bug report asked, corrections fed back); `traps.py`,
`decoys.py` and `generator.py` are our offline tasks; `published.py` reads sde-bench's repository;
`grading.py` and `sandbox.py` grade a module in a fenced child; `prompts.py` is what a chat agent
is told; `workspace.py` what an editing agent gets; `host.py` builds a task's repository;
`summary.py` the corrections histogram.
"""
