"""webrefs.adapters."""
