"""Extract: one file's bytes to plain, frozen facts, knowing nothing of other files.

Receives the sources and the packs' vocabulary; hands on ``FileFacts`` per file (names,
imports, classes, functions with their bindings and dispatch-loop facts, and the candidate
sites whose words the vocabulary names), cached by content hash and extracted in parallel
(``pool.Extraction``). ``file`` is one file, ``symbols`` the one ``ast`` pass, ``sites`` the
syntax a registration may take, ``loops`` dispatch loops, ``configs`` hook settings files,
``summary`` the per-file answers to whole-project questions.
"""
