"""The advisor: checks a design against what Microsoft documents and practitioners have measured,
and says what to change (docs/advise.md).

    from hvnet.advise import advise, findings_text, findings_document
    findings = advise(scenario)                  # errors, warnings, info; each fix's simulated effect
    findings_text(findings)                     # blocks, one per finding (rich)
    findings_document(findings)                  # JSON-ready dict

Each rule is data (``Rule``: id, severity, sources, confirmed, cmdlet) with a
small check beside it, one module per area: teaming, redundancy, mtu, cores,
migration, power. ``RULES`` lists them by id; ``NOT_CHECKED`` says which rules
of the starting set are not checked, and why.
"""

from hvnet.advise.advisor import CHECKS, RULES, advise
from hvnet.advise.notes import ENFORCED_AT_LOAD, NOT_CHECKED
from hvnet.advise.render import DOCUMENT_VERSION, findings_document, findings_text
from hvnet.advise.rules import Change, Finding, Fix, Rule, Severity, Source

__all__ = [
    "CHECKS",
    "DOCUMENT_VERSION",
    "ENFORCED_AT_LOAD",
    "NOT_CHECKED",
    "RULES",
    "Change",
    "Finding",
    "Fix",
    "Rule",
    "Severity",
    "Source",
    "advise",
    "findings_document",
    "findings_text",
]
