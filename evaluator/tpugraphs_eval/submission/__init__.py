"""Stage 1, the submission: CSV bytes → rows → parsed rankings, with every problem found in one pass
(SPEC §2). Validation is the first stage of scoring; there is no second parser."""
