"""Running the competition on existing platforms: the metric in Kaggle's ``score(solution, submission,
row_id_column_name)`` convention."""
