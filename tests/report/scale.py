"""Issue 12's large cluster: hosts hv1..hvN of two 10 GbE NICs in a SET team, two top-of-rack
switches, VMs of 4 to 16 GiB, and one rolling update (each node drained, patched for 10 min,
its VMs failed back).

The tests use a small one (`cluster_yaml(12, 5)`); the 64-host case of docs/report.md is

    python3 tests/report/scale.py 64 20 > c64.yaml
    hvnet simulate c64.yaml --report c64.html
"""

from __future__ import annotations

import sys


def cluster_yaml(hosts: int, vms_per_host: int) -> str:
    """The scenario as YAML: `hosts` hosts with `vms_per_host` VMs each, updated node by node."""
    lines = [f"name: {hosts}-host rolling update", "hosts:"]
    for h in range(1, hosts + 1):
        lines += [
            f"  - name: hv{h}",
            "    cpu: {sockets: 2, cores_per_socket: 16, ghz: 2.6}",
            "    memory: 768GiB",
            "    nics:",
            "      - {name: nic1, speed: 10Gbps, mtu: 9000}",
            "      - {name: nic2, speed: 10Gbps, mtu: 9000}",
            "    teams:",
            "      - {name: team1, kind: set, members: [nic1, nic2], load_balancing: hyperv_port}",
            "    vswitches:",
            "      - {name: vSwitch, uplink: team1}",
            "    live_migration: {option: tcp_ip, simultaneous: 2}",
        ]
    lines += [
        "switches:",
        f"  - {{name: tor1, ports: {max(hosts, 1)}, port_speed: 10Gbps}}",
        f"  - {{name: tor2, ports: {max(hosts, 1)}, port_speed: 10Gbps}}",
        "cables:",
    ]
    for h in range(1, hosts + 1):
        lines += [f"  - {{a: hv{h}/nic1, b: tor1/{h}}}", f"  - {{a: hv{h}/nic2, b: tor2/{h}}}"]
    lines.append("vms:")
    for h in range(1, hosts + 1):
        for v in range(vms_per_host):
            memory = 4 * (v % 4 + 1)
            lines.append(f"  - {{name: vm{h}-{v}, host: hv{h}, vcpus: 2, memory: {memory}GiB, vswitch: vSwitch}}")
    lines += ["events:", "  - {at: 0s, action: rolling_update, patch_time: 10min}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(cluster_yaml(int(sys.argv[1]), int(sys.argv[2])))
