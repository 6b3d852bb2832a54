"""Matching sites to registration and emission forms (``matcher.Matcher`` composes the parts)."""
