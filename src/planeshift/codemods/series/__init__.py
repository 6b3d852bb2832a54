"""`planeshift migrate --series DIR`: the migration as an ordered patch series (``build``), its
records (``model``), the steps applied to a temporary copy (``steps``) and the patch files
(``patchfile``).
"""
