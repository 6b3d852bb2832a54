"""The rule-pack model at the bottom of the house: the model, its strict reader, the loading of
YAML packs and the built-in packs (``builtin/``); nothing here imports the analyzer."""
