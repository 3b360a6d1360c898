"""What a run leaves behind: results.json and the terminal summary."""
