"""Names of what the lab makes: unique to each run, and within Linux's limits.

Every object a run makes lives in a network namespace of its own, named

    hvlab-<run>-h<i>   host i of the scenario (in file order)
    hvlab-<run>-s<j>   switch j

with `<run>` six hex digits drawn at random for the run (`new_run_id`), so that two labs never
touch each other's namespaces and `hvnet lab down <run>` removes one run only. Nothing is created
in the machine's own namespace: veth pairs are made with both ends inside the run's namespaces
(`ip -n NS link add ... peer ... netns OTHER`), and routes, rules and qdiscs exist only there, so
deleting the run's namespaces removes everything it made.

Inside its namespace an interface is named for what it is, so that `ip netns exec ... ip link`
reads like the scenario: a host NIC keeps the scenario's name when it is a valid Linux interface
name (at most 15 bytes, no `/`, `:` or white space, not `lo`), else `nic<k>`; a switch port is
`p<port>`; a switch's bridge `br0`. A host NIC's MAC address is fixed by its place
(`02:68:76:HH:NN:00`, locally administered), so that the plan knows it before anything exists.

Each TCP connection k of the run gets its own addresses, on the loopback of its hosts'
namespaces: source 10.1.x.y, destination 10.2.x.y (x, y from k), and its own routing table
(1000 + k) on both sides: the NIC it leaves by and the NIC it arrives on are its table's route and
static neighbour entry, so the lab pins each connection to the team members hvnet chose, and moves
it where hvnet moved it (`lab.plan`).
"""

from __future__ import annotations

import re
import secrets

__all__ = [
    "IFNAMSIZ",
    "PORT",
    "PREFIX",
    "addresses",
    "host_namespace",
    "interface_name",
    "mac",
    "new_run_id",
    "port_interface",
    "run_of",
    "run_prefix",
    "switch_namespace",
    "table",
    "valid_run_id",
]

#: Linux's interface names: at most 15 bytes (IFNAMSIZ is 16, with the terminating zero).
IFNAMSIZ = 15
#: Every namespace of every lab run starts with this.
PREFIX = "hvlab-"
#: The port every lab receiver listens on, in its host's namespace.
PORT = 5201
_RUN = re.compile(r"^[0-9a-f]{6}$")
_NAMESPACE = re.compile(r"^hvlab-([0-9a-f]{6})-[hs]\d+$")
_IFNAME = re.compile(r"^[A-Za-z0-9_.+=-]{1,15}$")


def new_run_id(taken: set[str] | frozenset[str] = frozenset()) -> str:
    """Six random hex digits, none of `taken`."""
    while True:
        run = secrets.token_hex(3)
        if run not in taken:
            return run


def valid_run_id(run: str) -> bool:
    return bool(_RUN.match(run))


def run_prefix(run: str) -> str:
    """`hvlab-a1b2c3-`: what every namespace of the run starts with."""
    return f"{PREFIX}{run}-"


def run_of(namespace: str) -> str | None:
    """The run a namespace belongs to, when it is a lab's; None for any other."""
    match = _NAMESPACE.match(namespace)
    return match[1] if match else None


def host_namespace(run: str, index: int) -> str:
    return f"{run_prefix(run)}h{index}"


def switch_namespace(run: str, index: int) -> str:
    return f"{run_prefix(run)}s{index}"


def interface_name(nic: str, index: int, taken: set[str]) -> str:
    """A host NIC's interface name: the scenario's when Linux takes it and it is free, else nic<index>."""
    name = nic if _IFNAME.match(nic) and nic not in {"lo", ".", ".."} and nic not in taken else f"nic{index}"
    while name in taken:
        name = f"n{index}x{len(taken)}"
    return name


def port_interface(port: str) -> str:
    """A switch port's interface: p<port> (ports are numbers up to 4096)."""
    return f"p{port}"[:IFNAMSIZ]


def mac(host: int, nic: int) -> str:
    """A host NIC's MAC address, locally administered: 02:68:76 ("hv"), then host and NIC."""
    return f"02:68:76:{host // 256:02x}:{host % 256:02x}:{nic:02x}"


def addresses(connection: int) -> tuple[str, str]:
    """Connection k's source and destination addresses (each a /32 on a loopback)."""
    x, y = divmod(connection, 250)
    return f"10.1.{x}.{y + 1}", f"10.2.{x}.{y + 1}"


def table(connection: int) -> int:
    """Connection k's routing table (and its rule's priority) on both of its hosts."""
    return 1000 + connection
