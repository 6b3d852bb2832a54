"""The evaluator (``engine.Evaluator``) and its parts."""
