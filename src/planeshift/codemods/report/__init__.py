"""The reports of a migrate run (``planeshift migrate``): ``text`` (the diff and the lists, for
people), ``json_report`` (the ``planeshift.migrate/1`` document) and ``owners`` (each owner
``--owners`` rewrote or refused, for both). They read a ``MigrateResult`` (``codemods.model``)
and live with the codemods, above ``reports/``, whose shared parts (``guidance``) they use."""
