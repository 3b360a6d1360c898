"""Running definitions against an agent: clock, tokens, turn-taking and the event log."""
