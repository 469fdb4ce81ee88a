"""Running the competition on existing platforms: the metric in Kaggle's ``score(solution, submission,
row_id_column_name)`` convention (:mod:`.standalone_metric`, re-exported by :mod:`.kaggle_metric` and written as one
self-contained file by :mod:`.metric_file`) and a Codabench bundle (:mod:`.codabench`)."""
