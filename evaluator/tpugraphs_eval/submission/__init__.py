"""The submission: CSV bytes → rows → parsed rankings, with every problem found in one pass
(docs/codes.md). Validation is the first stage of scoring; there is no second parser."""
