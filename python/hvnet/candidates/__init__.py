"""`hvnet design`: which candidate design is the cheapest that meets the scenario's requirements, and why.

    from hvnet.candidates import search, DEFAULT_CANDIDATES, load_candidates
    result = search(load_scenario("cluster.yaml"))   # every default candidate built, checked, priced
    result.best.candidate.name                        # "2 × 10 GbE LBFO, Compression"
    result.reasoning()                                # the answer in plain words

Each candidate rebuilds every host's NICs, team, cables and live-migration option (`build.apply`);
`hvnet.check` evaluates it (survive sampled), `hvnet.cost` prices it (docs/advise.md#do-i-need-10-gbe).
"""

from hvnet.candidates.build import apply
from hvnet.candidates.search import NEEDS_REQUIREMENTS, SURVIVE_SAMPLE, Search, Tried, search
from hvnet.candidates.show import DOCUMENT_VERSION, not_tried, search_document, search_table
from hvnet.candidates.spec import DEFAULT_CANDIDATES, Candidate, label, load_candidates

__all__ = [
    "DEFAULT_CANDIDATES",
    "DOCUMENT_VERSION",
    "NEEDS_REQUIREMENTS",
    "SURVIVE_SAMPLE",
    "Candidate",
    "Search",
    "Tried",
    "apply",
    "label",
    "load_candidates",
    "not_tried",
    "search",
    "search_document",
    "search_table",
]
