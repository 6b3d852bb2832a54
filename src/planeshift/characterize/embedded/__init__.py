"""Code a generated characterization module carries in its own text (never imported by
planeshift to run it): ``probes`` then ``observe``, in that order."""
