"""The store: what is known already about a tree, in its cache folder (``store.Store``).

Receives the discovered files; answers which are unchanged (the stat index), whether the whole
result is known (by the files' bytes, then by their facts), each file's facts (the fact cache)
and the last link (the snapshot an incremental link starts from); keeps a scan's result and link.
"""
