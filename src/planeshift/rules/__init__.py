"""Rule packs, classification, dispatch-policy inference and hazard checks."""
