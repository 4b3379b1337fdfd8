"""`hvnet check`: does the design meet its requirements, and does it still after every single failure?

    from hvnet.check import check
    result = check(load_scenario("cluster.yaml"))    # scenario.requirements, evaluated
    result.passed                                     # False when one requirement fails

Each requirement is measured on clean experiments built from the design (`evaluate`), under
each single failure of the kinds `survive` names (`failures`); `show` prints the rows and
writes the JSON (docs/check.md).
"""

from hvnet.check.evaluate import CheckResult, Outcome, Settings, SurviveResult, check, settings_of, simulations_needed
from hvnet.check.failures import Failure, failures
from hvnet.check.show import NOTHING_TO_CHECK, check_document, check_table

__all__ = [
    "NOTHING_TO_CHECK",
    "CheckResult",
    "Failure",
    "Outcome",
    "Settings",
    "SurviveResult",
    "check",
    "check_document",
    "check_table",
    "failures",
    "settings_of",
    "simulations_needed",
]
