"""A small shop service whose hooks grew over the years."""
