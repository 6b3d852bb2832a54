"""Classification and hazard checks, over the analyzer's facts.

Importing the package gives the configuration reader the codes of every rule it reports
(``config.provide_rule_codes``), so ``tool.planeshift.severity`` is checked without the
configuration importing the rules."""

from ..config import provide_rule_codes
from .catalog import rule_codes

provide_rule_codes(rule_codes)
