"""webrefs.evals."""
