"""`--mb-compare`: several runs' results.json side by side, read from the files alone.

`runs` reads and labels the runs; `comparison` pairs their shared items into rows and tests each
pair (`significance`); `judge_orders` and `losses` add how the judges ranked them and where their
answers were lost; `gold` the ceiling a gold store sets; `questions` the item-by-item view;
`board` ranks many runs with what they cost (and the Pareto front); `scale` draws score against
span or cost; `text`, `svg` and `report` print and write the comparison.
"""
