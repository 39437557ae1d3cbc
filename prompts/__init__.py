"""webrefs.prompts."""
