"""The report: the one result object of an evaluation (:mod:`.report`) and its terminal view
(:mod:`.terminal`); JSON is :meth:`Report.to_dict`."""
