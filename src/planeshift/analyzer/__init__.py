"""The analyzer: discover -> extract (per file) -> link (project-wide)."""
