"""What ``planeshift migrate --owners`` did to each owner: its dispatch methods rewritten with their
policy and profile, or refused with the reason, and its handler storage (the kernel's table, or
kept with the reason). Built from a MigrateResult for the JSON and text reports."""

from __future__ import annotations

from typing import Any

from ..model import Migrated, MigrateResult, NotMigrated

OWNER_CODEMODS = frozenset({"owner_dispatch", "owner_table"})


def owners(result: MigrateResult) -> list[dict[str, Any]]:
    """One record per owner (mechanism, file, class), in file order."""
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    outcomes: list[Migrated | NotMigrated] = [*result.migrated, *result.not_migrated]
    for outcome in sorted(outcomes, key=lambda o: (o.file, o.line, o.codemod)):
        info = outcome.owner
        if outcome.codemod not in OWNER_CODEMODS or info is None:
            continue
        entry = info.get("entry", "")
        cls = info.get("class") or (entry.rpartition(".")[0] if "." in entry else None)
        key = (info.get("mechanism", ""), outcome.file, cls or entry)
        record = found.setdefault(key, {"class": cls, "mechanism": key[0], "file": outcome.file,
                                        "status": "rewritten", "entries": [], "storage": None})
        if outcome.codemod == "owner_table":
            record["storage"] = _storage(outcome)
            continue
        record["entries"].append(_entry(outcome, entry))
    for record in found.values():
        statuses = {e["status"] for e in record["entries"]}
        record["status"] = "refused" if "refused" in statuses or "error" in statuses \
            else "rewritten"
    return [found[k] for k in sorted(found, key=lambda k: (k[1], k[2], k[0]))]


def _entry(outcome: Migrated | NotMigrated, entry: str) -> dict[str, Any]:
    info = outcome.owner or {}
    if isinstance(outcome, Migrated):
        policy = info.get("policy", {})
        return {"entry": entry, "line": outcome.line, "status": "rewritten",
                "shape": info.get("shape"), "policy": policy.get("axes", {}),
                "profile": policy.get("profile"), "matched": policy.get("matched"),
                "differences": policy.get("differences", []), "notes": info.get("notes", [])}
    return {"entry": entry, "line": outcome.line,
            "status": "error" if outcome.error else "refused", "reason": outcome.reason}


def _storage(outcome: Migrated | NotMigrated) -> dict[str, Any]:
    info = outcome.owner or {}
    if isinstance(outcome, Migrated):
        return {"status": "table", "attribute": info.get("storage"),
                "table": info.get("table"), "reason": None}
    return {"status": "error" if outcome.error else "kept", "attribute": None, "table": None,
            "reason": outcome.reason}


def owners_text(result: MigrateResult) -> list[str]:
    """The owners section of the text report (empty when no owner codemod ran)."""
    records = owners(result)
    if not records:
        return []
    lines = [f"owners ({len(records)}):"]
    for record in records:
        name = record["class"] or record["entries"][0]["entry"]
        lines.append(f"  {record['file']}: {name} ({record['mechanism']}): {record['status']}")
        for entry in record["entries"]:
            if entry["status"] == "rewritten":
                how = f"profile {entry['profile']}" if entry["matched"] == "exact" else \
                    f"nearest profile {entry['profile']}, differing in " + ", ".join(
                        f"{d['axis']}={d['code']}" for d in entry["differences"])
                lines.append(f"    {entry['entry']}: {entry['shape']} on the kernel, {how}")
            else:
                lines.append(f"    {entry['entry']}: {entry['status']}: {entry['reason']}")
        storage = record["storage"]
        if storage is not None:
            reason = str(storage["reason"]).removeprefix("storage kept: ")
            lines.append(f"    storage: {storage['attribute']} -> {storage['table']}"
                         if storage["status"] == "table" else f"    storage: kept: {reason}")
    return lines
