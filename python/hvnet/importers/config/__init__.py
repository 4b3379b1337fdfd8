"""Configuration -> scenario: what each Hyper-V host says about itself, as one hvnet scenario.

    from hvnet.importers.config import collect_script, import_config
    script = collect_script()                  # the PowerShell an administrator runs on each host
    imported = import_config([Path("hv1.json"), Path("hv2.json")])
    imported.yaml                              # the scenario, commented; ASSUMED marks guesses
    imported.assumptions                       # those guesses, one sentence each

docs/import.md, "Configuration", says what is read from which cmdlet and what is assumed.
"""

from importlib import resources

from hvnet.importers.config.convert import ImportedConfig, import_config
from hvnet.importers.config.dump import DUMP_FORMAT

__all__ = ["DUMP_FORMAT", "SCRIPT_NAME", "ImportedConfig", "collect_script", "import_config"]

#: The file name the collection script is shipped (and best saved) under.
SCRIPT_NAME = "collect.ps1"


def collect_script() -> str:
    """The PowerShell script that writes a host's configuration dump (Windows PowerShell 5.1 and PowerShell 7)."""
    return resources.files(__name__).joinpath(SCRIPT_NAME).read_text(encoding="utf-8")
