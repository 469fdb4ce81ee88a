"""Running the competition on existing platforms: the metric in Kaggle's ``score(solution, submission,
row_id_column_name)`` convention (:mod:`.kaggle_metric` in the package, :mod:`.standalone_metric` as one
self-contained file, exported by :mod:`.metric_file`) and a Codabench bundle (:mod:`.codabench`)."""
