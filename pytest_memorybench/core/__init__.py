"""The foundations every layer shares: records, errors, input readers, spans, tokens and timings.

`records` holds the typed records (Message, TestDefinition, Score, TestOutcome, Usage) and `estimate_bill`
the estimate's; `errors` the one-line usage and input errors; `readers` and `yamlfile` read user
files and say where they are wrong; `files` writes them atomically; `spans` parses memory spans;
`tokens` counts tokens; `timings` summarises call times; `load_report` says what a loader of
published data read and could not use; `json_reply` gets JSON out of a model's reply;
`jsonstream` reads huge JSON files one value at a time; `heavy` imports slow third-party modules
one thread at a time. It imports nothing else of the package.
"""
