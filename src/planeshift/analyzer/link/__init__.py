"""Link: the whole project, from every file's facts to candidates, emissions and mechanisms.

Receives the extracted facts (and the extraction, to collect the sites of the forwarders it
derives), the packs and, if the store kept one, the last link; hands on a ``Linked`` project,
not yet classified (``run.link``). The modules: ``index`` (names by qualified name, recording
what each lookup read), ``evaluate`` (what an expression may be), ``match`` and ``shapes``
(which sites register on which mechanism), ``forward`` (helpers that register with their
caller's arguments), ``linker`` (the steps, full or over the last link), ``incremental`` (what
an edit changed).
"""
