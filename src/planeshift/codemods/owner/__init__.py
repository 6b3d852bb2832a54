"""The owner rewrites: a dispatcher's own fan-out loop and handler list moved onto the kernels.

``dispatch`` and ``table`` are the codemods; the other modules read an owner (``plan``, ``read``,
``names``, ``clauses``, ``gather``, ``snapshot``, ``policy``, ``idiom``) and write it (``write``);
``examples`` holds their before/after fixtures.
"""
