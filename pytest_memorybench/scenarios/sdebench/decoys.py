"""Decoy developer conversations of our own: project talk that decides nothing a task rests on.

sde-bench buries each decision among 140 policy-free decoy chats so that surfacing it is a ranking
problem; ours are fewer and shorter, written here, and touch the same packages' neighbourhoods
(postage, stock, chat, jobs) so that a memory matching words alone meets near misses.
"""

from __future__ import annotations

DECOYS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "CI cache",
        (
            (
                "user",
                "The CI job spends four minutes installing dependencies on every push. Can we cache them?",
            ),
            ("assistant", "Yes: key the cache on the lock file's hash, so a dependency change rebuilds it."),
            ("user", "Do it for the test job only; the release job should always install fresh."),
            ("assistant", "Done: the test job restores the cache, the release job ignores it."),
        ),
    ),
    (
        "postage labels",
        (
            ("user", "The label printer cuts off the parcel's tracking number on the small labels."),
            ("assistant", "The template uses a 14 pt font; 11 pt fits the 62 mm labels with room to spare."),
            ("user", "Use 11 pt for small labels and keep 14 pt for the large ones."),
            ("assistant", "Changed the label template; postage amounts are untouched."),
        ),
    ),
    (
        "stock report layout",
        (
            ("user", "Warehouse staff want the stock report sorted by aisle instead of by SKU."),
            ("assistant", "The report can take an aisle column from the locations table and sort on it."),
            ("user", "Good, and put SKUs without an aisle at the end."),
            (
                "assistant",
                "Sorted by aisle, unplaced SKUs last; the counts come from merge_counts as before.",
            ),
        ),
    ),
    (
        "notifier rate limit",
        (
            ("user", "The chat notifier got rate limited during the outage yesterday."),
            (
                "assistant",
                "It sends one request per person; batching mentions into one request per channel would help.",
            ),
            ("user", "Let's batch per channel and log when the provider answers 429."),
            ("assistant", "Batching added, and a 429 is logged with the channel's name."),
        ),
    ),
    (
        "job queue dashboard",
        (
            ("user", "The job queue dashboard shows times in UTC and support keeps misreading them."),
            ("assistant", "We can show the viewer's local time and keep UTC in a tooltip."),
            ("user", "Yes please, and show how many tries a job has left next to its status."),
            ("assistant", "Local times on the dashboard, UTC on hover, and a tries-left column."),
        ),
    ),
    (
        "dependency bump",
        (
            ("user", "Dependabot opened twelve pull requests overnight. Can we group them?"),
            ("assistant", "A weekly schedule with one group for development tools keeps it to two or three."),
            ("user", "Weekly it is, Mondays, and never auto-merge."),
            ("assistant", "Configured: weekly on Monday, tools grouped, no auto-merge."),
        ),
    ),
)
