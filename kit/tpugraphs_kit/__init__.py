"""tpugraphs_kit: the participant kit (data access, baselines, notebooks). Filled in by issue 3."""
